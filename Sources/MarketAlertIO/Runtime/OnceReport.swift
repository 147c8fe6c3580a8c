import Foundation
import MarketAlertCore

/// The table `marketalertd once` prints: premiums per rule and asset, source health, IPO offerings. Pure:
/// everything it shows comes in as values (`now` and the zones included), so a test renders it exactly.
package enum OnceReport {
    /// - Parameters:
    ///   - ipo: every tracked offering with its state now (`IPOWatcher.snapshot()`).
    ///   - now: the instant the report is about.
    ///   - displayTimeZones: `display.time_zones` (unknown identifiers are skipped; none means UTC).
    ///   - includeClosed: list closed windows too (`once --all`); otherwise only their count is shown.
    package static func render(
        premiums: [(rule: String, asset: String, observation: PremiumObservation?)], reference: String,
        ipo: [IPOOfferingStatus], health: [String: SourceHealth], now: Date, displayTimeZones: [String],
        includeClosed: Bool
    ) -> String {
        var rows: [[String]] = [["RULE", "ASSET", "PREMIUM", "HIGH", "LOW"]]
        for entry in premiums {
            guard let observation = entry.observation else {
                rows.append([entry.rule, entry.asset, "n/a", "(fewer than two fresh prices)", ""])
                continue
            }
            rows.append([
                entry.rule, entry.asset, "\(NumberText.pctText(observation.pct))%",
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
            lines += ipoLines(ipo, now: now, displayTimeZones: displayTimeZones, includeClosed: includeClosed).map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    /// `now …` in every display zone, then open windows (soonest end first), upcoming ones (soonest start
    /// first), those with unreadable dates, and closed ones (latest first) only when `includeClosed`.
    package static func ipoLines(
        _ offerings: [IPOOfferingStatus], now: Date, displayTimeZones: [String], includeClosed: Bool
    ) -> [String] {
        var lines = ["now " + DisplayTime.line(now, zones: displayTimeZones)]
        let open = offerings.filter(\.isOpen).sorted { order($0, $1, by: \.subscriptionEnd) }
        let upcoming = offerings.filter { $0.state == .upcoming }.sorted { order($0, $1, by: \.subscriptionStart) }
        let unknown = offerings.filter { $0.state == .unknown }
        let closed = offerings.filter { $0.state == .closed }.sorted { order($0, $1, by: \.subscriptionEnd, latestFirst: true) }
        let shown = open + upcoming + unknown + (includeClosed ? closed : [])
        lines += shown.map { line($0, now: now) }
        if open.isEmpty, upcoming.isEmpty { lines.append("no subscription window open or upcoming") }
        if !includeClosed, !closed.isEmpty {
            lines.append("(\(closed.count) closed window\(closed.count == 1 ? "" : "s") not shown; `once --all` lists them)")
        }
        return lines
    }

    /// `4169 泰宗 (初上市): opens tomorrow, subscription 2026-03-25..2026-03-27 Asia/Taipei, price 102.00 TWD (not final)`.
    package static func line(_ status: IPOOfferingStatus, now: Date) -> String {
        var title = "\(status.code) \(status.name)"
        if let market = status.market, !market.isEmpty { title += " (\(market))" }
        var parts = [relative(status, now: now)]
        parts.append("subscription \(status.subscriptionStart?.iso ?? "?")..\(status.subscriptionEnd?.iso ?? "?") \(status.timeZone)")
        if let value = status.value {
            parts.append(value.text)  // v3 ipo.value: offer, market price, spread, win rate
        } else if let price = status.price {
            parts.append("price \(IPOEvents.priceDigits(price)) \(status.currency)\(status.priceIsProvisional ? " (not final)" : "")")
        }
        return "\(title): " + parts.joined(separator: ", ")
    }

    /// The state said relative to today in the market's own zone (the zone its dates are days of):
    /// `opens tomorrow`, `opens in 3 days`, `opened today, closes in 2 days`, `open, closes tomorrow`,
    /// `last day today`, `closed yesterday`, `dates not understood`.
    package static func relative(_ status: IPOOfferingStatus, now: Date) -> String {
        guard let calendar = MarketCalendar(timeZoneIdentifier: status.timeZone),
              let start = status.subscriptionStart, let end = status.subscriptionEnd
        else { return status.state == .unknown ? "dates not understood" : status.state.rawValue }
        let today = calendar.day(of: now)
        switch status.state {
        case .upcoming: return "opens \(RelativeDay.phrase(start, today: today))"
        case .open:
            let opened = start == today ? "opened today" : "open"
            return "\(opened), closes \(RelativeDay.phrase(end, today: today))"
        case .last_day: return "last day today"
        case .closed: return "closed \(RelativeDay.phrase(end, today: today))"
        case .unknown: return "dates not understood"
        }
    }

    /// By a date (missing dates last), then by source and code.
    private static func order(
        _ left: IPOOfferingStatus, _ right: IPOOfferingStatus, by day: KeyPath<IPOOfferingStatus, CalendarDay?>,
        latestFirst: Bool = false
    ) -> Bool {
        switch (left[keyPath: day], right[keyPath: day]) {
        case let (l?, r?) where l != r: latestFirst ? l > r : l < r
        case (nil, _?): false
        case (_?, nil): true
        default: (left.source, left.code) < (right.source, right.code)
        }
    }

    private static func side(_ priced: PricedQuote, reference: String) -> String {
        var text = "\(priced.quote.exchange.rawValue) \(NumberText.money(priced.price.exact, currency: priced.quote.quote)) \(priced.quote.quote)"
        if !priced.rates.isEmpty {
            text += " = \(NumberText.money(CurrencyDigits.priceRef(priced.priceRef, currency: reference), currency: reference)) \(reference)"
        }
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

/// `2026-03-24 12:28 UTC | 2026-03-24 21:28 Asia/Seoul`: one instant in each display zone, through Foundation
/// calendars.
package enum DisplayTime {
    package static func line(_ instant: Date, zones identifiers: [String]) -> String {
        let zones = identifiers.compactMap(TimeZone.init(identifier:))
        return (zones.isEmpty ? [TimeZone.gmt] : zones).map { zone in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
            let label = zone.identifier == "GMT" ? "UTC" : zone.identifier
            return String(format: "%04d-%02d-%02d %02d:%02d %@", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, label)
        }.joined(separator: " | ")
    }
}
