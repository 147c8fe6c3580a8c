import Foundation
import MarketAlertCore
import Testing

/// Routes (first match, continue), time windows (muted is not sent later unless send_after_mute) and
/// inhibition (a failing exchange holds back premiums on either side; released once) on virtual time.
@Suite struct NotificationRouterTests {
    private let t0 = Date(timeIntervalSince1970: 1_794_990_400)  // 2026-11-18T08:26:40Z

    private func premium(_ rule: String, _ asset: String, high: String, low: String, status: String = "firing", at: Date? = nil) -> AlertEvent {
        let quote = { (exchange: String) in
            QuoteDetail(exchange: exchange, market: "\(asset)-USDT", price: 1, quote: "USDT", priceRef: 1, side: nil, at: at ?? t0)
        }
        let detail = PremiumDetail(
            rule: rule, asset: asset, pct: 1, thresholdPct: 0.5, basis: .last, reference: "USD", high: quote(high),
            low: quote(low), fx: [])
        return AlertEvent(
            id: UUID().uuidString, key: "premium/\(rule)/\(asset)", kind: .premium, status: status, severity: .warning,
            at: at ?? t0, summary: "", premium: detail)
    }

    private func source(_ name: String, status: String) -> AlertEvent {
        AlertEvent(
            id: UUID().uuidString, key: "source/\(name)", kind: .source, status: status, severity: .warning, at: t0,
            summary: "", source: SourceDetail(name: name, error: "down", lastSuccess: nil, consecutiveFailures: 3))
    }

    @Test func withoutRoutesEverySinkTakesItsKinds() {
        var router = NotificationRouter(settings: RoutingSettings())
        let outcome = router.route(premium("global", "BTC", high: "upbit", low: "binance"), at: t0)
        #expect(outcome.decision == RoutingDecision(sinks: nil))
    }

    @Test func firstMatchWinsAndContinueAddsLaterRoutes() {
        let settings = RoutingSettings(routes: [
            Route(match: NotificationMatch(kind: .premium, rule: "kimchi"), sinks: ["phone", "chat"], continue: true),
            Route(match: NotificationMatch(exchange: "upbit"), sinks: ["chat", "ops"]),
            Route(match: NotificationMatch(), sinks: ["fallback"]),
        ])
        var router = NotificationRouter(settings: settings)
        #expect(router.route(premium("kimchi", "BTC", high: "upbit", low: "binance"), at: t0).decision.sinks == ["phone", "chat", "ops"])
        #expect(router.route(premium("kimchi", "ETH", high: "bithumb", low: "binance"), at: t0).decision.sinks == ["phone", "chat", "fallback"])
        #expect(router.route(premium("global", "BTC", high: "okx", low: "upbit"), at: t0).decision.sinks == ["chat", "ops"])
        #expect(router.route(source("kraken", status: "firing"), at: t0).decision.sinks == ["fallback"])
        let keyed = RoutingSettings(routes: [Route(match: NotificationMatch(key: "premium/*/BTC"), sinks: ["btc"])])
        var byKey = NotificationRouter(settings: keyed)
        #expect(byKey.route(premium("any", "BTC", high: "a", low: "b"), at: t0).decision.sinks == ["btc"])
        #expect(byKey.route(premium("any", "ETH", high: "a", low: "b"), at: t0).decision.sinks == [])
    }

    @Test func aMutedNotificationIsNotSentLaterUnlessTheRouteSaysSo() throws {
        let always = TimeWindow(name: "all-day", entries: [TimeWindowEntry()])
        let firstHour = TimeWindow(name: "first-hour", entries: [TimeWindowEntry(times: [ClockRange(start: 8 * 60, end: 9 * 60)])])
        let settings = RoutingSettings(
            routes: [
                Route(match: NotificationMatch(rule: "quiet"), sinks: ["phone"], muteTimeIntervals: ["all-day"]),
                Route(match: NotificationMatch(rule: "later"), sinks: ["phone"], muteTimeIntervals: ["first-hour"], sendAfterMute: true),
            ],
            timeIntervals: ["all-day": always, "first-hour": firstHour])
        var router = NotificationRouter(settings: settings)
        let quiet = router.route(premium("quiet", "BTC", high: "a", low: "b"), at: t0)
        #expect(quiet.decision.sinks == [])
        #expect(quiet.decision.mutedByTime == 1)
        #expect(router.nextWake(after: t0) == nil)  // muted and forgotten

        // t0 is 08:26:40 UTC: inside first-hour. The firing alert waits for 09:00.
        let later = router.route(premium("later", "BTC", high: "a", low: "b"), at: t0)
        #expect(later.decision.sinks == [])
        let wake = try #require(router.nextWake(after: t0))
        #expect(wake == Date(timeIntervalSince1970: 1_794_990_420))
        #expect(router.wake(at: wake).isEmpty)  // 08:27, still muted
        let end = try #require(ISO8601DateFormatter().date(from: "2026-11-18T09:00:00Z"))
        let sent = router.wake(at: end)
        #expect(sent.map(\.sinks) == [["phone"]])
        #expect(sent.first?.event.key == "premium/later/BTC")
        #expect(router.wake(at: end.addingTimeInterval(60)).isEmpty)  // once
        #expect(router.nextWake(after: end) == nil)
    }

    @Test func anAlertThatResolvesWhileMutedIsNeverSentAfterTheWindow() throws {
        let firstHour = TimeWindow(name: "first-hour", entries: [TimeWindowEntry(times: [ClockRange(start: 8 * 60, end: 9 * 60)])])
        let settings = RoutingSettings(
            routes: [Route(match: NotificationMatch(), sinks: ["phone"], muteTimeIntervals: ["first-hour"], sendAfterMute: true)],
            timeIntervals: ["first-hour": firstHour])
        var router = NotificationRouter(settings: settings)
        _ = router.route(premium("r", "BTC", high: "a", low: "b"), at: t0)
        _ = router.route(premium("r", "BTC", high: "a", low: "b", status: "resolved"), at: t0.addingTimeInterval(60))
        let end = try #require(ISO8601DateFormatter().date(from: "2026-11-18T09:00:00Z"))
        #expect(router.wake(at: end).isEmpty)
        #expect(router.nextWake(after: t0) == nil)
    }

    @Test func anActiveIntervalSendsOnlyInsideIt() {
        let morning = TimeWindow(name: "morning", entries: [TimeWindowEntry(times: [ClockRange(start: 6 * 60, end: 8 * 60)])])
        let settings = RoutingSettings(
            routes: [Route(match: NotificationMatch(), sinks: ["mail"], activeTimeIntervals: ["morning"])],
            timeIntervals: ["morning": morning])
        var router = NotificationRouter(settings: settings)
        #expect(router.route(premium("r", "BTC", high: "a", low: "b"), at: t0).decision.sinks == [])  // 08:26
        #expect(router.route(premium("r", "BTC", high: "a", low: "b"), at: t0.addingTimeInterval(-3600)).decision.sinks == ["mail"])
    }

    @Test func aFailingExchangeInhibitsPremiumsOnEitherSideAndReleasesThemOnce() {
        let settings = RoutingSettings(
            routes: [Route(match: NotificationMatch(), sinks: ["chat"])],
            inhibit: [InhibitRule(source: NotificationMatch(kind: .source), target: NotificationMatch(kind: .premium), equal: [.exchange])])
        var router = NotificationRouter(settings: settings)
        #expect(router.route(source("upbit", status: "firing"), at: t0).decision.sinks == ["chat"])
        let low = router.route(premium("kimchi", "BTC", high: "binance", low: "upbit"), at: t0)
        #expect(low.decision.sinks == [])
        #expect(low.decision.inhibitedBy == ["source/upbit"])
        let other = router.route(premium("kimchi", "ETH", high: "bithumb", low: "binance"), at: t0)
        #expect(other.decision.sinks == ["chat"])
        #expect(other.decision.inhibitedBy == nil)
        let resolved = router.route(source("upbit", status: "resolved"), at: t0.addingTimeInterval(30))
        #expect(resolved.decision.sinks == ["chat"])
        #expect(resolved.released.map(\.event.key) == ["premium/kimchi/BTC"])
        #expect(resolved.released.first?.sinks == ["chat"])
        // Once: a second resolution releases nothing.
        #expect(router.route(source("upbit", status: "resolved"), at: t0.addingTimeInterval(60)).released.isEmpty)
    }

    @Test func aTargetThatResolvedWhileInhibitedIsNotReleased() {
        let settings = RoutingSettings(inhibit: [
            InhibitRule(source: NotificationMatch(kind: .source), target: NotificationMatch(kind: .premium), equal: [.exchange])
        ])
        var router = NotificationRouter(settings: settings)
        _ = router.route(source("upbit", status: "firing"), at: t0)
        let held = router.route(premium("kimchi", "BTC", high: "binance", low: "upbit"), at: t0)
        #expect(held.decision.sinks == [])  // inhibition applies without routes too
        _ = router.route(premium("kimchi", "BTC", high: "binance", low: "upbit", status: "resolved"), at: t0)
        #expect(router.route(source("upbit", status: "resolved"), at: t0).released.isEmpty)
    }

    @Test func anAlertMatchingBothSidesNeverInhibitsItself() {
        let settings = RoutingSettings(inhibit: [
            InhibitRule(source: NotificationMatch(kind: .premium), target: NotificationMatch(kind: .premium), equal: [.asset])
        ])
        var router = NotificationRouter(settings: settings)
        let first = router.route(premium("a", "BTC", high: "x", low: "y"), at: t0)
        #expect(first.decision.inhibitedBy == nil)
        let again = router.route(premium("a", "BTC", high: "x", low: "y"), at: t0)
        #expect(again.decision.inhibitedBy == nil)
        // Another rule's BTC premium is inhibited by the first.
        #expect(router.route(premium("b", "BTC", high: "x", low: "y"), at: t0).decision.inhibitedBy == ["premium/a/BTC"])
    }

    @Test func globsMatchWholeKeys() {
        #expect(Glob.matches("premium/*/BTC", "premium/kimchi/BTC"))
        #expect(!Glob.matches("premium/*/BTC", "premium/kimchi/BTCX"))
        #expect(Glob.matches("*", ""))
        #expect(Glob.matches("source/*", "source/binance"))
        #expect(!Glob.matches("source/*", "premium/source/x"))
        #expect(Glob.matches("*/BTC*", "premium/a/BTC-2"))
    }
}
