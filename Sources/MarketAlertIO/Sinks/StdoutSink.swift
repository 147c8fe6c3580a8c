import Foundation
import MarketAlertCore

#if canImport(Glibc)
import Glibc
#endif

/// Writes each event as one line to stdout (JSON or text) and flushes it, so `journalctl` or a pipe sees
/// the alert at once.
package struct StdoutSink: AlertSink {
    package let name = "stdout"
    private let format: StdoutFormat
    private let zones: [TimeZone]
    private let write: @Sendable (String) -> Bool

    /// - Parameter write: writes one line; false when it did not get through (a test may capture lines).
    package init(format: StdoutFormat, displayTimeZones: [String], write: (@Sendable (String) -> Bool)? = nil) {
        self.format = format
        self.zones = displayTimeZones.compactMap(TimeZone.init(identifier:))
        self.write = write ?? StdoutSink.writeLine
    }

    /// A failed write (a closed pipe, `/dev/full`) is a failed delivery: the publisher logs it to stderr or
    /// the journal and retries, and the event is not marked delivered.
    package func deliver(_ event: AlertEvent) async throws {
        guard write(line(for: event)) else {
            throw SinkFailure(sink: name, message: "cannot write to stdout: \(String(cString: strerror(errno)))")
        }
    }

    package func line(for event: AlertEvent) -> String {
        switch format {
        case .json:
            return (try? event.jsonLine()) ?? "{\"error\":\"unencodable event \(event.id)\"}"
        case .text:
            return TextAlertFormatter.line(event, zones: zones)
        }
    }

    private static func writeLine(_ line: String) -> Bool {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(STDOUT_FILENO, base + offset, buffer.count - offset)
                if written <= 0 {
                    if written < 0, errno == EINTR { continue }
                    if written == 0 { errno = EIO }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}

/// One readable line per event: `2026-03-10 02:47:00 UTC | 11:47 Asia/Seoul | WARNING premium/global/BTC firing: …`.
package enum TextAlertFormatter {
    package static func line(_ event: AlertEvent, zones: [TimeZone]) -> String {
        let times = (zones.isEmpty ? [TimeZone.gmt] : zones).map { zone in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: event.at)
            let label = zone.identifier == "GMT" ? "UTC" : zone.identifier
            return String(
                format: "%04d-%02d-%02d %02d:%02d:%02d %@", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0,
                c.minute ?? 0, c.second ?? 0, label)
        }
        return "\(times.joined(separator: " | ")) | \(event.severity.rawValue.uppercased()) \(event.key) \(event.status): \(event.summary)"
    }
}
