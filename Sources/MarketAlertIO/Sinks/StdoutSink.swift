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
    private let write: @Sendable (String) -> Void

    package init(format: StdoutFormat, displayTimeZones: [String], write: (@Sendable (String) -> Void)? = nil) {
        self.format = format
        self.zones = displayTimeZones.compactMap(TimeZone.init(identifier:))
        self.write = write ?? StdoutSink.writeLine
    }

    package func deliver(_ event: AlertEvent) async {
        write(line(for: event))
    }

    package func line(for event: AlertEvent) -> String {
        switch format {
        case .json:
            return (try? event.jsonLine()) ?? "{\"error\":\"unencodable event \(event.id)\"}"
        case .text:
            return TextAlertFormatter.line(event, zones: zones)
        }
    }

    private static func writeLine(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)  // non-empty buffer
                if written <= 0 {
                    if written < 0, errno == EINTR { continue }
                    return
                }
                offset += written
            }
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
