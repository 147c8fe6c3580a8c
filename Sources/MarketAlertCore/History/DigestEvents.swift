import Foundation

/// `digest` of a digest event (schema `$defs/digest`).
package struct DigestDetail: Sendable, Equatable, Codable {
    package struct Premium: Sendable, Equatable, Codable {
        package var rule: String
        package var asset: String
        @PercentNumber package var minPct: Double
        @PercentNumber package var maxPct: Double
        @PercentNumber package var lastPct: Double
        package var maxAt: Date?
        package var notifications: Int?

        package init(rule: String, asset: String, minPct: Double, maxPct: Double, lastPct: Double, maxAt: Date?, notifications: Int?) {
            self.rule = rule
            self.asset = asset
            self.minPct = minPct
            self.maxPct = maxPct
            self.lastPct = lastPct
            self.maxAt = maxAt
            self.notifications = notifications
        }

        enum CodingKeys: String, CodingKey {
            case rule, asset, minPct = "min_pct", maxPct = "max_pct", lastPct = "last_pct", maxAt = "max_at", notifications
        }
    }

    package var day: String
    package var timeZone: String
    package var premium: [Premium]
    package var ipo: [IPODetail]?

    package init(day: String, timeZone: String, premium: [Premium], ipo: [IPODetail]?) {
        self.day = day
        self.timeZone = timeZone
        self.premium = premium
        self.ipo = ipo
    }

    enum CodingKeys: String, CodingKey { case day, timeZone = "time_zone", premium, ipo }
}

/// Builds digest events (kind `digest`, key `digest/<local day>`, status `info`) and their chat text.
package enum DigestEvents {
    package static func key(day: String) -> String { "digest/\(day)" }

    package static func event(
        id: String, day: String, settings: DigestSettings, tallies: [String: DigestTally], offerings: [IPOOffering], now: Date,
        late: Bool = false
    ) -> AlertEvent {
        var premium: [DigestDetail.Premium] = []
        if settings.kinds.contains(.premium) {
            for (key, tally) in tallies.sorted(by: { $0.key < $1.key }) {
                guard let parts = HistorySample.split(key: key) else { continue }
                premium.append(
                    DigestDetail.Premium(
                        rule: parts.rule, asset: parts.asset, minPct: tally.minPct, maxPct: tally.maxPct, lastPct: tally.lastPct, maxAt: tally.maxAt,
                        notifications: tally.notifications))
            }
        }
        let ipo = settings.kinds.contains(.ipo) ? openWindows(offerings, now: now) : nil
        let detail = DigestDetail(day: day, timeZone: settings.timeZone, premium: premium, ipo: ipo)
        var summary = "Daily digest \(day) (\(settings.timeZone))\(late ? ", sent late" : ""): "
        var parts: [String] = []
        if settings.kinds.contains(.premium) {
            if let top = premium.max(by: { $0.maxPct < $1.maxPct }) {
                parts.append("\(premium.count) premium\(premium.count == 1 ? "" : "s"), highest \(top.asset) (\(top.rule)) \(NumberText.pctText(top.maxPct))%")
            } else {
                parts.append("no premium history")
            }
        }
        if let ipo { parts.append("\(ipo.count) IPO window\(ipo.count == 1 ? "" : "s") open") }
        summary += parts.joined(separator: "; ")
        return AlertEvent(
            id: id, key: key(day: day), kind: .digest, status: "info", severity: .info, at: now, summary: summary, digest: detail)
    }

    /// Offerings whose subscription window includes the day `now` falls on in their own zone.
    static func openWindows(_ offerings: [IPOOffering], now: Date) -> [IPODetail] {
        var result: [IPODetail] = []
        for offering in offerings.sorted(by: { ($0.source, $0.code) < ($1.source, $1.code) }) {
            guard let calendar = MarketCalendar(timeZoneIdentifier: offering.timeZone), let start = offering.subscriptionStart,
                  let end = offering.subscriptionEnd
            else { continue }
            let today = calendar.day(of: now)
            guard start <= today, today <= end else { continue }
            result.append(
                IPODetail(
                    source: offering.source, code: offering.code, name: offering.name, market: offering.market,
                    state: today == end ? .last_day : .open, previousState: nil, subscriptionStart: start.iso,
                    subscriptionEnd: end.iso, lotteryDate: offering.lotteryDate?.iso, listingDate: offering.listingDate?.iso,
                    price: offering.price, shares: offering.offeredShares, timeZone: offering.timeZone))
        }
        return result
    }

    /// The compact chat text of a digest: one line per rule and asset, one per open IPO window. Times of the
    /// maxima in the digest's zone.
    package static func lines(_ detail: DigestDetail) -> [String] {
        let zone = TimeZone(identifier: detail.timeZone) ?? .gmt
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var lines: [String] = []
        for p in detail.premium {
            var line = "\(p.asset) (\(p.rule)): \(NumberText.pctText(p.minPct))% to \(NumberText.pctText(p.maxPct))%"
            if let at = p.maxAt {
                let c = calendar.dateComponents([.hour, .minute], from: at)
                line += String(format: " (max at %02d:%02d)", c.hour ?? 0, c.minute ?? 0)
            }
            line += ", last \(NumberText.pctText(p.lastPct))%"
            if let n = p.notifications, n > 0 { line += ", \(n) notification\(n == 1 ? "" : "s")" }
            lines.append(line)
        }
        for o in detail.ipo ?? [] {
            lines.append("IPO \(o.code) \(o.name): subscription \(o.subscriptionStart ?? "?") to \(o.subscriptionEnd ?? "?")\(o.state == .last_day ? " (last day)" : "")"
                + (o.value.map { ", " + $0.text } ?? ""))
        }
        return lines
    }
}
