import Foundation
import MarketAlertCore
import Testing

/// v3 `assets: all`: a refresh changes a rule's assets without a restart. One that leaves while firing
/// resolves quietly (one resolved notification saying so); one that joins settles like any new market (no
/// alert until every exchange of the rule answered again).
@Suite struct WatchedAssetsRefreshTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start
    let exchanges: [ExchangeID] = [.binance, .bybit, .okx]

    func settings(assets: [String]) -> Settings {
        var rule = Kit.rule("all", exchanges: exchanges, assets: assets)
        rule.selection.all = true
        return Kit.settings(rules: [rule])
    }

    func quotes(_ exchange: ExchangeID, _ prices: [(String, String)], at: Date) -> EngineEvent {
        .quotes(exchange, prices.map { Kit.quote(exchange, $0.1, asset: $0.0, at: at) }, .snapshot)
    }

    func published(_ actions: [EngineAction]) -> Publication? {
        for action in actions { if case .publish(let publication) = action { return publication } }
        return nil
    }

    @Test func aFiringAssetThatLeavesResolvesQuietlyAndOneThatJoinsSettlesFirst() {
        var engine = Kit.engine(settings(assets: ["BTC", "ETH"]))
        var fired: [AlertEvent] = []
        fired += Kit.events(engine.handle(quotes(.binance, [("BTC", "60000"), ("ETH", "3000")], at: t0), now: t0))
        fired += Kit.events(engine.handle(quotes(.bybit, [("BTC", "60000"), ("ETH", "3000")], at: t0), now: t0))
        fired += Kit.events(engine.handle(quotes(.okx, [("BTC", "60000"), ("ETH", "3030")], at: t0), now: t0))
        #expect(fired.map(\.key) == ["premium/all/ETH"])
        #expect(fired.first?.status == AlertEvent.Status.firing)

        // The hourly refresh: ETH left (delisted on two exchanges), XRP joined.
        let t1 = t0 + 60
        let refresh = engine.handle(.settings(settings(assets: ["BTC", "XRP"])), now: t1)
        let resolved = Kit.events(refresh)
        #expect(resolved.map(\.key) == ["premium/all/ETH"])
        #expect(resolved.first?.status == AlertEvent.Status.resolved)
        #expect(resolved.first?.severity == .info)
        #expect(resolved.first?.summary.hasPrefix("ETH premium (all) resolved: no longer watched") == true)
        #expect(resolved.first?.summary.hasSuffix("last 1%") == true)
        #expect(published(refresh)?.deletedKeys.contains("premium/all/ETH") == true)
        #expect(engine.premium.state(forKey: "premium/all/ETH") == nil)
        #expect(engine.watchedAssetsByRule["all"] == ["BTC", "XRP"])

        // XRP is 20% dearer on bybit, but okx has not answered since the refresh: a partial view, no alert.
        let t2 = t1 + 1
        var later = Kit.events(engine.handle(quotes(.binance, [("BTC", "60000"), ("XRP", "0.5")], at: t2), now: t2))
        later += Kit.events(engine.handle(quotes(.bybit, [("BTC", "60000"), ("XRP", "0.6")], at: t2), now: t2))
        #expect(later.isEmpty)
        later += Kit.events(engine.handle(quotes(.okx, [("BTC", "60000"), ("XRP", "0.5")], at: t2), now: t2))
        #expect(later.map(\.key) == ["premium/all/XRP"])
        #expect(later.first?.status == AlertEvent.Status.firing)
    }

    /// A restart: the rule's assets are unknown until the lists are read, so the restored states wait; then a
    /// firing asset still listed keeps firing (no second notification) and one no longer listed resolves quietly.
    @Test func restoredStatesWaitForTheFirstListAndThenStayOrResolveQuietly() throws {
        var firing = LeveledAlertStateMachine()
        _ = firing.observe(1.0, now: t0 - 600, policy: LeveledAlertPolicy(Kit.rule("all", exchanges: exchanges)))
        #expect(firing.isFiring)
        var restored = AlertEngine.Restored()
        restored.premium = ["premium/all/ETH": firing, "premium/all/DOGE": firing]
        var engine = Kit.engine(settings(assets: []), restored: restored)
        #expect(engine.premium.state(forKey: "premium/all/ETH")?.isFiring == true)

        let first = engine.handle(.settings(settings(assets: ["BTC", "ETH"])), now: t0)
        let events = Kit.events(first)
        #expect(events.map(\.key) == ["premium/all/DOGE"])
        #expect(events.first?.status == AlertEvent.Status.resolved)
        #expect(events.first?.summary == "DOGE premium (all) resolved: no longer watched (it left the rule's assets: all list)")
        #expect(published(first)?.deletedKeys == ["premium/all/DOGE"])
        #expect(engine.premium.state(forKey: "premium/all/ETH")?.isFiring == true)

        // Still firing at 1%: no new notification once every exchange answered.
        var later: [AlertEvent] = []
        for exchange in exchanges {
            later += Kit.events(engine.handle(quotes(exchange, [("BTC", "60000"), ("ETH", exchange == .okx ? "3030" : "3000")], at: t0 + 1), now: t0 + 1))
        }
        #expect(later.isEmpty)
    }

    /// A fixed list losing an asset on reload is unchanged from version 2: the state goes without a notification.
    @Test func aFixedListLosingAFiringAssetStaysSilentAsBefore() {
        var engine = Kit.engine(Kit.settings(rules: [Kit.rule("fixed", exchanges: [.binance, .bybit], assets: ["BTC", "ETH"])]))
        _ = engine.handle(quotes(.binance, [("BTC", "60000"), ("ETH", "3000")], at: t0), now: t0)
        let fired = Kit.events(engine.handle(quotes(.bybit, [("BTC", "60000"), ("ETH", "3030")], at: t0), now: t0))
        #expect(fired.map(\.key) == ["premium/fixed/ETH"])
        let reload = engine.handle(.settings(Kit.settings(rules: [Kit.rule("fixed", exchanges: [.binance, .bybit], assets: ["BTC"])])), now: t0 + 1)
        #expect(Kit.events(reload).isEmpty)
        #expect(published(reload)?.deletedKeys.contains("premium/fixed/ETH") == true)
    }

    /// `min_volume_24h`: an ignored market is not read even when the book has a quote for it; the exchange's
    /// next quote currency is.
    @Test func anIgnoredMarketIsLeftOutOfThePremium() {
        var rule = Kit.rule("thin", exchanges: [.binance, .bybit], quotes: ["USDT", "USDC"], assets: ["BTC"])
        rule.ignoredMarkets = [ExchangeMarket(.bybit, MarketPair(base: "BTC", quote: "USDT"))]
        var engine = Kit.engine(Kit.settings(rules: [rule]))
        _ = engine.handle(quotes(.binance, [("BTC", "60000")], at: t0), now: t0)
        let bybit: EngineEvent = .quotes(
            .bybit, [Kit.quote(.bybit, "66000", asset: "BTC", quote: "USDT", at: t0), Kit.quote(.bybit, "60010", asset: "BTC", quote: "USDC", at: t0)],
            .snapshot)
        #expect(Kit.events(engine.handle(bybit, now: t0)).isEmpty)
        let observation = engine.premium.observation(forKey: "premium/thin/BTC", in: engine.book)
        #expect(observation?.high.quote.quote == "USDC")
    }
}
