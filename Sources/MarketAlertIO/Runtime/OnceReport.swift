import Foundation
import MarketAlertCore

/// The table `marketalertd once` prints: premiums per rule and asset, source health, IPO offerings.
package enum OnceReport {
    package static func render(
        premiums: [(rule: String, asset: String, observation: PremiumObservation?)], reference: String, ipo: [String],
        health: [String: SourceHealth]
    ) -> String {
        var rows: [[String]] = [["RULE", "ASSET", "PREMIUM", "HIGH", "LOW"]]
        for entry in premiums {
            guard let observation = entry.observation else {
                rows.append([entry.rule, entry.asset, "n/a", "(fewer than two fresh prices)", ""])
                continue
            }
            rows.append([
                entry.rule, entry.asset, "\(NumberText.percent(observation.pct))%",
                side(observation.high, reference: reference), side(observation.low, reference: reference),
            ])
        }
        var lines = table(rows)
        lines.append("")
        lines.append("SOURCES")
        if health.isEmpty { lines.append("  (none polled)") }
        for (name, state) in health.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(name): " + (state.consecutiveFailures == 0 ? "ok" : "failing: \(state.lastError ?? "error")"))
        }
        if !ipo.isEmpty {
            lines.append("")
            lines.append("IPO SUBSCRIPTIONS")
            lines += ipo.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    /// One line per offering: `7795 長聖 (上市): open, subscription 2024-01-02..2024-01-04 Asia/Taipei price 120.00 TWD`.
    package static func describe(_ status: IPOOfferingStatus) -> String {
        let dates = "\(status.subscriptionStart?.iso ?? "?")..\(status.subscriptionEnd?.iso ?? "?")"
        let price = status.price.map { " price \(NumberText.price($0)) \(status.currency)\(status.priceIsProvisional ? " (not final)" : "")" } ?? ""
        return "\(status.code) \(status.name) (\(status.market ?? "-")): \(status.state.rawValue), subscription \(dates) \(status.timeZone)\(price)"
    }

    private static func side(_ priced: PricedQuote, reference: String) -> String {
        var text = "\(priced.quote.exchange.rawValue) \(NumberText.price(priced.price.exact)) \(priced.quote.quote)"
        if !priced.rates.isEmpty { text += " = \(NumberText.price(priced.priceRef)) \(reference)" }
        return text
    }

    private static func table(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
    }
}
