import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage

/// The status page `/`: one server-rendered HTML document with its own small stylesheet, no external
/// assets and no JavaScript (it refreshes itself every 15 s). Tables turn into stacked cards on narrow
/// screens. Rows carry `data-*` attributes (keys, states) so tests can read the rendered DOM.
package enum StatusPage {
    package static func render(
        _ view: EngineStatus, silences: [Silence], displayTimeZones: [String], version: String, startedAt: Date, listen: String?,
        sparklines: [String: String] = [:], routing: APIDocuments.Routing? = nil
    ) -> String {
        let zones = displayTimeZones.compactMap(TimeZone.init(identifier:))
        let clock = PageClock(now: view.at, zones: zones.isEmpty ? [.gmt] : zones)
        let html = HTMLBuffer()
        html.raw("""
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="refresh" content="15">
            <title>marketalertd</title>
            <style>\(style)</style>
            </head><body>
            """)
        header(html, view, version: version, startedAt: startedAt, listen: listen, clock: clock)
        html.raw("<main>")
        premium(html, view.premium, sparklines: sparklines)
        alerts(html, view.alerts, clock: clock)
        silenceSection(html, silences, now: view.at, clock: clock)
        sources(html, view.sources, clock: clock)
        fx(html, view.fx, clock: clock, tether: view.usdtKrwPremiumPct)
        ipo(html, view.ipo, clock: clock)
        listingSection(html, view.listings, clock: clock)
        routeSection(html, routing)
        html.raw("</main><footer>Times in \(MarkupEscaping.html(clock.zones.map(\.identifier).joined(separator: ", "))) · JSON: ")
        html.raw(#"<a href="/api/v1/status">status</a> · <a href="/api/v1/alerts">alerts</a> · <a href="/api/v1/silences">silences</a> · <a href="/metrics">metrics</a></footer>"#)
        html.raw("</body></html>\n")
        return html.text
    }

    private static func header(_ html: HTMLBuffer, _ view: EngineStatus, version: String, startedAt: Date, listen: String?, clock: PageClock) {
        let state = view.settled ? "ready" : "waiting"
        html.raw("<header><h1>marketalertd</h1>")
        html.raw("<p id=\"state\" class=\"badge \(state)\" data-ready=\"\(view.settled)\">\(state)</p>")
        html.raw("<p id=\"status-line\">").text(view.statusLine).raw("</p>")
        html.raw("<p class=\"meta\">version ").text(version).raw(" · started ").text(clock.instant(startedAt))
        html.raw(" · as of ").text(clock.instant(view.at))
        if let listen { html.raw(" · ").text(listen) }
        html.raw("</p></header>")
    }

    private static func premium(_ html: HTMLBuffer, _ rows: [PremiumStatus], sparklines: [String: String]) {
        html.section("premium", "Premiums", count: rows.count)
        guard !rows.isEmpty else { return html.empty("No premium rules configured.") }
        html.table(["Rule", "Asset", "Premium", "Last 24 h", "High", "Low", "Level"])
        for row in rows {
            let state = row.firingSeverity.map { "firing-\($0.rawValue)" } ?? (row.pending ? "pending" : "ok")
            html.raw("<tr data-key=\"\(MarkupEscaping.html(PremiumEvents.key(rule: row.rule, asset: row.asset)))\" data-state=\"\(state)\" class=\"\(state)\">")
            html.cell("Rule", row.rule).cell("Asset", row.asset)
            if let observation = row.observation {
                html.cell("Premium", NumberText.percent(observation.pct) + "%" + basesText(row.bases), numeric: true)
                sparkline(html, sparklines[PremiumEvents.key(rule: row.rule, asset: row.asset)])
                html.cell("High", side(observation.high)).cell("Low", side(observation.low))
            } else {
                html.cell("Premium", "–", numeric: true)
                sparkline(html, sparklines[PremiumEvents.key(rule: row.rule, asset: row.asset)])
                html.cell("High", "–").cell("Low", "–")
            }
            let level = row.firingSeverity.map { "\($0.rawValue) (≥ \(NumberText.threshold(row.levels[row.firingLevel ?? 0].pct))%)" }
                ?? (row.pending ? "pending" : "–")
            html.cell("Level", level)
            html.raw("</tr>")
            executableRow(html, row, columns: 7)
        }
        html.endTable()
    }

    /// The 24 h sparkline cell (inline SVG from `HistoryChart`), or a dash without history.
    private static func sparkline(_ html: HTMLBuffer, _ svg: String?) {
        guard let svg, !svg.isEmpty else { html.cell("Last 24 h", "–"); return }
        html.raw("<td data-label=\"Last 24 h\" class=\"spark\">\(svg)</td>")
    }

    private static func side(_ priced: PricedQuote) -> String {
        "\(priced.quote.exchange.rawValue) \(NumberText.price(priced.price.exact)) \(priced.quote.quote)"
    }

    private static func alerts(_ html: HTMLBuffer, _ alerts: [FiringAlert], clock: PageClock) {
        html.section("alerts", "Active alerts", count: alerts.count)
        guard !alerts.isEmpty else { return html.empty("Nothing is firing.") }
        html.table(["Key", "Severity", "Since", "Last notified", "Silenced by", "Summary"])
        for alert in alerts {
            html.raw("<tr data-key=\"\(MarkupEscaping.html(alert.key))\" data-severity=\"\(alert.severity.rawValue)\" class=\"firing-\(alert.severity.rawValue)\">")
            html.cell("Key", alert.key).cell("Severity", alert.severity.rawValue)
            html.cell("Since", alert.since.map(clock.instant) ?? "–").cell("Last notified", alert.lastNotifiedAt.map(clock.instant) ?? "never")
            html.cell("Silenced by", alert.silencedBy ?? "–").cell("Summary", alert.event?.summary ?? "–")
            html.raw("</tr>")
        }
        html.endTable()
    }

    private static func silenceSection(_ html: HTMLBuffer, _ silences: [Silence], now: Date, clock: PageClock) {
        let open = silences.filter { $0.endsAt > now }
        html.section("silences", "Silences", count: open.count)
        guard !open.isEmpty else { return html.empty("No active or pending silences.") }
        html.table(["Id", "Matchers", "State", "Starts", "Ends", "Comment", "By"])
        for silence in open.prefix(shownSilences) {
            let state = silence.isActive(at: now) ? "active" : "pending"
            html.raw("<tr data-silence=\"\(MarkupEscaping.html(silence.id))\" data-state=\"\(state)\">")
            html.cell("Id", silence.id).cell("Matchers", matchers(silence.matchers)).cell("State", state)
            html.cell("Starts", clock.instant(silence.startsAt)).cell("Ends", clock.instant(silence.endsAt))
            html.cell("Comment", silence.comment).cell("By", silence.createdBy)
            html.raw("</tr>")
        }
        html.raw("</tbody></table>")
        if open.count > shownSilences {
            html.raw("<p class=\"empty\" id=\"silences-more\">").text("and \(open.count - shownSilences) more: ")
            html.raw(#"<a href="/api/v1/silences">/api/v1/silences</a></p>"#)
        }
        html.raw("</section>")
    }

    /// The most silences the page lists (the API pages through all of them).
    package static let shownSilences = 100

    package static func matchers(_ matchers: SilenceMatchers) -> String {
        var parts = ["key=\(matchers.key)"]
        if let kind = matchers.kind { parts.append("kind=\(kind.rawValue)") }
        if let rule = matchers.rule { parts.append("rule=\(rule)") }
        if let asset = matchers.asset { parts.append("asset=\(asset)") }
        if let severity = matchers.severity { parts.append("severity=\(severity.rawValue)") }
        return parts.joined(separator: " ")
    }

    private static func sources(_ html: HTMLBuffer, _ sources: [SourceStatus], clock: PageClock) {
        html.section("sources", "Sources", count: sources.count)
        guard !sources.isEmpty else { return html.empty("No sources configured.") }
        html.table(["Source", "Kind", "Health", "Transport", "Last success", "Last error", "Failures"])
        for source in sources {
            let health = source.awaited ? "waiting" : source.firing ? "alerting" : source.up ? "up" : source.heard ? "down" : "idle"
            html.raw("<tr data-source=\"\(MarkupEscaping.html(source.name))\" data-health=\"\(health)\" class=\"health-\(health)\">")
            html.cell("Source", source.name).cell("Kind", source.kind.rawValue).cell("Health", health)
            let transport = source.streamConfigured && !source.streamConnected ? "rest (stream down)" : source.transport
            html.cell("Transport", transport)
            html.cell("Last success", source.lastSuccess.map { clock.age($0) } ?? "never")
            html.cell("Last error", source.lastError ?? "–").cell("Failures", "\(source.consecutiveFailures)", numeric: true)
            html.raw("</tr>")
        }
        html.endTable()
    }

    /// v3, kimchi rows: ` (usd_fx 3.1% · usdt -1.2%)`, both KRW bases side by side.
    private static func basesText(_ bases: PremiumBases?) -> String {
        guard let bases else { return "" }
        func pct(_ value: Double?) -> String { value.map { NumberText.percent($0) + "%" } ?? "–" }
        return " (usd_fx \(pct(bases.usdFxPct)) · usdt \(pct(bases.usdtPct)))"
    }

    private static func fx(_ html: HTMLBuffer, _ rates: [FXRate], clock: PageClock, tether: Double? = nil) {
        html.section("fx", "FX rates", count: rates.count)
        guard !rates.isEmpty else { return html.empty("No FX rate in use.") }
        html.table(["Pair", "Rate", "Provider", "Quoted", "Age"])
        for rate in rates {
            html.raw("<tr data-pair=\"\(MarkupEscaping.html(rate.pair))\" data-provider=\"\(MarkupEscaping.html(rate.provider))\">")
            let pair = rate.pair == TetherPremiumAlertSettings.pair
                ? rate.pair + (tether.map { " (tether premium \(FXMoveAlerts.signedPercent($0)))" } ?? "") : rate.pair
            html.cell("Pair", pair).cell("Rate", NumberText.price(rate.rate.exact), numeric: true).cell("Provider", rate.provider)
            html.cell("Quoted", clock.instant(rate.at)).cell("Age", clock.duration(clock.now.timeIntervalSince(rate.at)))
            html.raw("</tr>")
        }
        html.endTable()
    }

    /// v3: listings and delistings of the last 7 days (shown only when there are any).
    private static func listingSection(_ html: HTMLBuffer, _ rows: [ListingRecord], clock: PageClock) {
        guard !rows.isEmpty else { return }
        html.section("listings", "Listings (7 days)", count: rows.count)
        html.table(["Exchange", "Market", "Asset", "Status", "When"])
        for row in rows {
            html.raw("<tr data-listing=\"\(MarkupEscaping.html(ListingEvents.key(ExchangeID(row.exchange), row.market.market)))\" data-status=\"\(row.status)\">")
            html.cell("Exchange", row.exchange).cell("Market", row.market.market).cell("Asset", "\(row.market.asset)/\(row.market.quote)")
            html.cell("Status", row.status).cell("When", clock.instant(row.at))
            html.raw("</tr>")
        }
        html.endTable()
    }

    private static func ipo(_ html: HTMLBuffer, _ rows: [IPOOfferingStatus], clock: PageClock) {
        html.section("ipo", "IPO subscription windows", count: rows.count)
        guard !rows.isEmpty else { return html.empty("No open or upcoming subscription window.") }
        let valued = rows.contains { $0.value != nil }  // v3 ipo.value: market price, spread, win rate
        html.table(["Code", "Name", "State", "Window", "Opens", "Lottery", "Price"] + (valued ? ["Market", "Spread", "Win rate"] : []))
        for row in rows {
            html.raw("<tr data-ipo=\"\(MarkupEscaping.html(row.key))\" data-state=\"\(row.state.rawValue)\" class=\"ipo-\(row.state.rawValue)\">")
            html.cell("Code", row.code).cell("Name", row.name + (row.market.map { " (\($0))" } ?? "")).cell("State", row.state.rawValue.replacingOccurrences(of: "_", with: " "))
            let window = "\(row.subscriptionStart?.iso ?? "?") – \(row.subscriptionEnd?.iso ?? "?") (\(row.timeZone))"
            html.cell("Window", window)
            let calendar = MarketCalendar(timeZoneIdentifier: row.timeZone)
            let opens = row.subscriptionStart.flatMap { day in calendar?.startOfDay(day) }
            html.cell("Opens", opens.map(clock.instant) ?? "–")
            html.cell("Lottery", row.lotteryDate?.iso ?? "–")
            let price = row.price.map { NumberText.price($0) + " " + row.currency + (row.priceIsProvisional ? " (provisional)" : "") } ?? "–"
            html.cell("Price", price, numeric: true)
            if valued { valueCells(html, row.value) }
            html.raw("</tr>")
        }
        html.endTable()
    }

    /// Market price with its source and date, spread with the expected profit per winning lot, win rate.
    private static func valueCells(_ html: HTMLBuffer, _ value: IPOValue?) {
        var market = "unknown"
        if let value, let price = value.marketPrice, let source = value.marketPriceSource {
            market = "\(source.label) \(NumberText.exact(price)) \(value.currency)" + (value.marketPriceDate.map { " (\($0))" } ?? "")
        }
        html.cell("Market", market, numeric: true)
        var spread = "–"
        if let value, let pct = value.spreadPct {
            spread = "\(pct >= 0 ? "+" : "")\(NumberText.grouped(pct, fractionDigits: 1))%"
            if let profit = value.expectedProfit { spread += " (≈ \(NumberText.grouped(profit, fractionDigits: 0)) \(value.currency)/lot)" }
        }
        html.cell("Spread", spread, numeric: true)
        html.cell("Win rate", value?.winRatePct.map { "\(NumberText.exact($0))%" } ?? "–", numeric: true)
    }
}
