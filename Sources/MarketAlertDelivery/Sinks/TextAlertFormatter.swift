import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

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
