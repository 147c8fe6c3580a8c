/// Short durations for reasons: `30s`, `1.5s`, `2m`.
package enum StreamDurationText {
    package static func describe(_ duration: Duration) -> String {
        let seconds = duration.seconds
        if seconds >= 120, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
        if seconds == seconds.rounded() { return "\(Int(seconds))s" }
        return "\((seconds * 10).rounded() / 10)s"
    }
}
