import Foundation
import MarketAlertCore

/// One line naming a notification: an email's Subject and an ntfy Title.
///
/// - premium: `[warning] BTC kimchi premium 3.5%` (`[resolved] …` when it cleared)
/// - ipo: `IPO 7795 長聖 opens today`
/// - others: `[severity] ` and the summary's first clause, at most `limit` characters.
package enum NotificationTitle {
    package static let limit = 160

    package static func text(for event: AlertEvent) -> String {
        let label = event.status == "resolved" ? "resolved" : event.severity.rawValue
        if let premium = event.premium {
            return "[\(label)] \(premium.asset) \(premium.rule) premium \(percent(premium.pct))%"
        }
        if let ipo = event.ipo {
            return clipped("IPO \(ipo.code) \(ipo.name) \(ipoPhrase(event.status))")
        }
        if event.kind == .digest { return clipped(firstLine(event.summary)) }
        return clipped("[\(label)] \(firstClause(event.summary))")
    }

    /// `3.5`, `-0.25`, `12`: two decimals at most, trailing zeros dropped.
    package static func percent(_ value: Double) -> String {
        guard value.isFinite else { return "?" }
        let text = String(format: "%.2f", value)
        guard text.contains(".") else { return text }
        let trimmed = text.reversed().drop(while: { $0 == "0" }).drop(while: { $0 == "." })
        let result = String(trimmed.reversed())
        return result == "-0" ? "0" : result
    }

    private static func ipoPhrase(_ status: String) -> String {
        switch status {
        case "open": "opens today"
        case "last_day": "last day to subscribe today"
        case "closed": "subscription closed"
        case "announced": "announced"
        case "drawn": "lottery result published"
        default: status.replacingOccurrences(of: "_", with: " ")
        }
    }

    private static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: true).first ?? "")
    }

    /// Up to the first ", " or line break: `binance failing: HTTP 503` rather than the whole story.
    private static func firstClause(_ text: String) -> String {
        let line = firstLine(text)
        guard let comma = line.range(of: ", ") else { return line }
        return String(line[..<comma.lowerBound])
    }

    private static func clipped(_ text: String) -> String {
        let clean = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        return clean.count > limit ? String(clean.prefix(limit - 1)) + "…" : clean
    }
}
