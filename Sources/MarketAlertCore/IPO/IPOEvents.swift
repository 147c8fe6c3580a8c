import Foundation

/// Builds the alert events of IPO subscription notices (kind `ipo`, key `ipo/<source>/<code>/<start>`).
package enum IPOEvents {
    /// The event for `notice`, detected at `now`. `status` is the new state, or `announced`.
    /// `value` (v3 `ipo.value`) goes into the detail and the summary.
    package static func event(
        id: String, offering: IPOOffering, notice: SubscriptionStateMachine.Notice, today: CalendarDay, now: Date,
        value: IPOValue? = nil
    ) -> AlertEvent {
        var detail = IPODetail(
            source: offering.source, code: offering.code, name: offering.name, market: offering.market,
            state: notice.state, previousState: notice.previousState, subscriptionStart: offering.subscriptionStart?.iso,
            subscriptionEnd: offering.subscriptionEnd?.iso, lotteryDate: offering.lotteryDate?.iso,
            listingDate: offering.listingDate?.iso, price: offering.price, shares: offering.offeredShares,
            timeZone: offering.timeZone)
        detail.value = value
        let status = switch notice.notification {
        case .announced: "announced"
        case .drawn: "drawn"
        default: notice.state.rawValue
        }
        var text = summary(offering: offering, notice: notice, today: today, priced: value != nil)
        if let value { text += ": " + value.text }
        return AlertEvent(
            id: id, key: offering.key, kind: .ipo, status: status, severity: severity(notice.notification), at: now,
            summary: text, ipo: detail)
    }

    package static func severity(_ notification: IPONotification) -> Severity {
        switch notification {
        case .opens, .last_day: .notice
        case .announced, .closed, .lottery_day, .drawn: .info
        }
    }

    /// One line, e.g. `IPO 7795 長廣 (初上市) opens today 2024-01-02 (Asia/Taipei), closes 2024-01-04, price 45.00 TWD`.
    /// `priced`: the value follows (v3), so the offer price is said there instead.
    package static func summary(
        offering: IPOOffering, notice: SubscriptionStateMachine.Notice, today: CalendarDay, priced: Bool = false
    ) -> String {
        let zone = offering.timeZone
        let start = offering.subscriptionStart?.iso ?? "?"
        let end = offering.subscriptionEnd?.iso ?? "?"
        var parts: [String] = []
        switch notice.notification {
        case .announced:
            if offering.window != nil {
                parts.append("announced: subscription \(start) to \(end) (\(zone))")
            } else {
                parts.append("announced with subscription dates not understood "
                    + "(\"\(offering.subscriptionStartText)\" to \"\(offering.subscriptionEndText)\")")
            }
            if let lottery = offering.lotteryDate { parts.append("lottery \(lottery.iso)") }
            if !priced { parts.append(contentsOf: priceText(offering)) }
            if let shares = offering.offeredShares {
                parts.append("\(NumberText.grouped(Decimal(shares), fractionDigits: 0)) shares")
            }
        case .opens where notice.catchUp, .last_day where notice.catchUp:
            // What the user missed, said relative to today: `opened 2 days ago (…), last day today (…)`.
            parts.append(contentsOf: missedOpening(offering, today: today))
            if !priced { parts.append(contentsOf: priceText(offering)) }
        case .opens:
            parts.append("opens today \(start) (\(zone))")
            parts.append(offering.subscriptionEnd == today ? "closes today \(end)" : "closes \(end)")
            if !priced { parts.append(contentsOf: priceText(offering)) }
        case .last_day:
            if offering.subscriptionStart == today {
                parts.append("one-day subscription today \(end) (\(zone))")
            } else {
                parts.append("last day to subscribe today \(end) (\(zone))")
            }
            if !priced { parts.append(contentsOf: priceText(offering)) }
        case .closed:
            if notice.catchUp {
                let closed = offering.subscriptionEnd.map { RelativeDay.phrase($0, today: today) } ?? "?"
                parts.append("subscription \(start) to \(end) (\(zone)) closed \(closed)")
            } else {
                parts.append("subscription closed \(end) (\(zone))")
            }
            if let lottery = offering.lotteryDate { parts.append("lottery \(lottery.iso)") }
        case .lottery_day:
            parts.append("lottery draw today \(offering.lotteryDate?.iso ?? today.iso) (\(zone))")
            if !priced { parts.append(contentsOf: priceText(offering)) }
        case .drawn:
            var drawn = "lottery result published"
            if let rate = offering.winRatePct { drawn += ": win rate \(NumberText.exact(rate))%" }
            if let qualified = offering.qualifiedApplications, qualified > 0 {
                drawn += " of \(NumberText.grouped(Decimal(qualified), fractionDigits: 0)) qualified applications"
            }
            parts.append(drawn)
        }
        if let cancelled = offering.drawCancelled { parts.append("public draw cancelled: \(cancelled)") }
        return "IPO \(title(offering)) " + parts.joined(separator: ", ")
    }

    /// `subscription opened 2 days ago (2024-01-02, Asia/Taipei)`, `last day today (2024-01-04)` (or
    /// `closes tomorrow (2024-01-05)` while still open).
    private static func missedOpening(_ offering: IPOOffering, today: CalendarDay) -> [String] {
        guard let start = offering.subscriptionStart, let end = offering.subscriptionEnd else { return [] }
        let opened = "subscription opened \(RelativeDay.phrase(start, today: today)) (\(start.iso), \(offering.timeZone))"
        let closes = end == today ? "last day today (\(end.iso))" : "closes \(RelativeDay.phrase(end, today: today)) (\(end.iso))"
        return [opened, closes]
    }

    /// `7795 長廣 (初上市)`.
    package static func title(_ offering: IPOOffering) -> String {
        var text = offering.code
        if !offering.name.isEmpty { text += " \(offering.name)" }
        if let market = offering.market, !market.isEmpty { text += " (\(market))" }
        return text
    }

    /// `price 45.00 TWD`, `price 102.00 TWD (not final)`, or nothing when no price is published.
    private static func priceText(_ offering: IPOOffering) -> [String] {
        guard let price = offering.price else { return [] }
        let suffix = offering.priceIsProvisional ? " (not final)" : ""
        return ["price \(priceDigits(price)) \(offering.currency)\(suffix)"]
    }

    /// At least two decimals, more when the published price has them (`98.654`), never rounded away.
    package static func priceDigits(_ price: Decimal) -> String {
        let places = min(max(2, -price.exponent), 8)
        return NumberText.grouped(price, fractionDigits: places)
    }
}
