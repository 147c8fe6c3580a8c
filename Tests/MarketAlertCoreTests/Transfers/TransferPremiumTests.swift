import Foundation
import MarketAlertCore
import Testing

/// `transfers: require` leaves out pairs whose cheap side cannot withdraw or whose dear side cannot deposit
/// (unknown is not suspended); `annotate` says in each premium notification whether the coins can move.
@Suite struct TransferPremiumTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    static func settings(_ mode: TransferMode, basis: PremiumBasis = .last) -> Settings {
        var rule = Kit.rule("global", exchanges: [.binance, .okx, .upbit])
        rule.basis = basis
        rule.transfers = mode
        var settings = Kit.settings(rules: [rule])
        settings.transfers = TransferSettings()
        return settings
    }

    static func suspend(_ exchange: ExchangeID, withdraw: Bool = false, deposit: Bool = false, at: Date) -> EngineEvent {
        let network = NetworkTransferStatus(network: "BTC", withdraw: withdraw ? .suspended : .ok, deposit: deposit ? .suspended : .ok)
        return .transfers(TransferReport(exchange: exchange, checkedAt: at, assets: ["BTC"], decoded: ["BTC": [network]]))
    }

    /// binance 100,000 (cheapest), okx 100,080, upbit 100,120 (dearest): 0.12% between binance and upbit.
    func feedLast(_ engine: inout AlertEngine, at now: Date) -> [AlertEvent] {
        var events: [AlertEvent] = []
        for (id, price) in [(ExchangeID.binance, "100000"), (.okx, "100080"), (.upbit, "100120")] {
            events += Kit.events(engine.handle(.quotes(id, [Kit.quote(id, price, at: now)], .snapshot), now: now))
        }
        return events.filter { $0.kind == .premium }
    }

    @Test func requireLeavesOutTheCheapSideThatCannotWithdraw() {
        var engine = Kit.engine(Self.settings(.require))
        _ = engine.handle(Self.suspend(.binance, withdraw: true, at: t0), now: t0)
        // okx → upbit is 0.04%: below the 0.05% notice level, so nothing fires.
        #expect(feedLast(&engine, at: t0).isEmpty)
        let observation = engine.premiumTable().first?.observation
        #expect(observation?.low.quote.exchange == .okx)
        #expect(observation?.high.quote.exchange == .upbit)
        // Withdrawals resume: the binance → upbit premium fires at once (the quotes are still fresh).
        let t1 = t0.addingTimeInterval(1)
        let fired = Kit.events(engine.handle(Self.suspend(.binance, at: t1), now: t1)).filter { $0.kind == .premium }
        #expect(fired.map(\.status) == ["firing"])
        #expect(fired.first?.premium?.low.exchange == "binance")
        #expect(fired.first?.premium?.transfer?.withdrawLow == .ok)
        // Suspended again while firing: the premium nobody can close resolves.
        let t2 = t1.addingTimeInterval(1)
        let resolved = Kit.events(engine.handle(Self.suspend(.binance, withdraw: true, at: t2), now: t2)).filter { $0.kind == .premium }
        #expect(resolved.map(\.status) == ["resolved"])
    }

    @Test func requireLeavesOutTheDearSideThatCannotDeposit() {
        var engine = Kit.engine(Self.settings(.require))
        _ = engine.handle(Self.suspend(.upbit, deposit: true, at: t0), now: t0)
        // binance → okx is 0.08%: the notice level, not the warning the 0.12% would have been.
        let events = feedLast(&engine, at: t0)
        #expect(events.map(\.severity) == [.notice])
        #expect(events.first?.premium?.high.exchange == "okx")
        #expect(events.first?.premium?.transfer?.depositHigh == .unknown, "okx was never asked")
    }

    @Test func whenTheBestBuyerAndSellerAreOneExchangeTheBetterOtherPairIsTaken() {
        var engine = Kit.engine(Self.settings(.require))
        // binance cannot withdraw, upbit cannot take deposits: okx is both the best seller left (100,080 over
        // binance's 100,000) and the best buyer left (under upbit's 100,120). Of the two pairs without it on
        // both sides, buying on upbit and selling on okx (-0.04%) beats buying on okx and selling on binance
        // (-0.08%): a negative premium, nothing to alert on.
        _ = engine.handle(Self.suspend(.binance, withdraw: true, at: t0), now: t0)
        _ = engine.handle(Self.suspend(.upbit, deposit: true, at: t0), now: t0)
        #expect(feedLast(&engine, at: t0).isEmpty)
        let blocked = engine.premiumTable().first?.observation
        #expect(blocked?.high.quote.exchange == .okx)
        #expect(blocked?.low.quote.exchange == .upbit)
        #expect(blocked.map { abs($0.pct - (100_080.0 - 100_120.0) / 100_120.0 * 100) < 1e-9 } == true)
        // upbit's deposits resume: okx → upbit (0.04%) is the one pair left.
        let t1 = t0.addingTimeInterval(1)
        _ = engine.handle(Self.suspend(.upbit, at: t1), now: t1)
        let observation = engine.premiumTable().first?.observation
        #expect(observation?.low.quote.exchange == .okx)
        #expect(observation?.high.quote.exchange == .upbit)
    }

    @Test func unknownIsNotSuspended() {
        var engine = Kit.engine(Self.settings(.require))
        let unknown = EngineEvent.transfers(TransferReport(exchange: .binance, checkedAt: t0, assets: ["BTC"], decoded: [:]))
        _ = engine.handle(unknown, now: t0)
        let events = feedLast(&engine, at: t0)
        #expect(events.map(\.severity) == [.warning])
        #expect(events.first?.premium?.transfer?.withdrawLow == .unknown)
    }

    @Test func requireAppliesToBidAskPairs() {
        var engine = Kit.engine(Self.settings(.require, basis: .bidask))
        _ = engine.handle(Self.suspend(.binance, withdraw: true, at: t0), now: t0)
        var events: [AlertEvent] = []
        for (id, bid, ask) in [(ExchangeID.binance, "99990", "100000"), (.okx, "100070", "100080"), (.upbit, "100120", "100130")] {
            let quote = Quote(
                exchange: id, market: "BTCUSDT", base: "BTC", quote: "USDT", last: Price(bid), bid: Price(bid), ask: Price(ask), receivedAt: t0)
            events += Kit.events(engine.handle(.quotes(id, [quote], .snapshot), now: t0)).filter { $0.kind == .premium }
        }
        // Bid 100,120 on upbit against the ask 100,080 on okx (0.04%), not binance's 100,000 ask (0.12%).
        #expect(events.isEmpty)
        #expect(engine.premiumTable().first?.observation?.low.quote.exchange == .okx)
    }

    @Test func annotateSaysWhetherTheCoinsCanMoveAndLeavesThePairIn() {
        var engine = Kit.engine(Self.settings(.annotate))
        _ = engine.handle(Self.suspend(.binance, withdraw: true, at: t0), now: t0)
        let events = feedLast(&engine, at: t0)
        #expect(events.map(\.severity) == [.warning])
        let transfer = events.first?.premium?.transfer
        #expect(transfer?.withdrawLow == .suspended)
        #expect(transfer?.depositHigh == .unknown, "upbit was never asked")
        #expect(transfer?.checkedAt == nil)
        #expect(events.first?.summary.hasSuffix("; withdraw on binance suspended, deposit on upbit unknown") == true)
    }

    @Test func ignoreAndVersionTwoConfigsCarryNoTransfer() {
        var ignoring = Kit.engine(Self.settings(.ignore))
        _ = ignoring.handle(Self.suspend(.binance, withdraw: true, at: t0), now: t0)
        let events = feedLast(&ignoring, at: t0)
        #expect(events.count == 1)
        #expect(events.first?.premium?.transfer == nil)
        #expect(events.first?.premium?.low.exchange == "binance")
        var plain = Kit.engine(Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .okx, .upbit])]))
        let v2 = feedLast(&plain, at: t0)
        #expect(v2.first?.premium?.transfer == nil)
        #expect(v2.first.map { !$0.summary.contains("withdraw") } == true)
    }

    @Test func requireStillLeavesThePairOutAfterATakeover() {
        var standby = Kit.engine(Self.settings(.require))
        _ = standby.handle(Self.suspend(.binance, withdraw: true, at: t0), now: t0)
        #expect(feedLast(&standby, at: t0).isEmpty)
        // The standby takes over (nothing stored): the quotes and the suspension it saw still hold.
        let t1 = t0.addingTimeInterval(1)
        let adopted = Kit.events(standby.adopt(AlertEngine.Restored(), now: t1)).filter { $0.kind == .premium }
        #expect(adopted.isEmpty, "\(adopted.map(\.summary))")
        #expect(standby.premiumTable().first?.observation?.low.quote.exchange == .okx)
    }

    @Test func aReloadThatDropsTheRuleForgetsItsTransferAlerts() {
        var engine = Kit.engine(Self.settings(.require))
        _ = engine.handle(Self.suspend(.binance, withdraw: true, at: t0), now: t0)
        var settings = Self.settings(.require)
        settings.premium.rules[0].transfers = .ignore
        let actions = engine.handle(.settings(settings), now: t0.addingTimeInterval(1))
        let deleted = actions.flatMap { action -> [String] in
            if case .publish(let publication) = action { return publication.deletedKeys }
            return []
        }
        #expect(deleted.contains("transfer/binance/BTC"))
        #expect(!Kit.events(actions).contains { $0.kind == .transfer }, "a rule taken away resolves nothing")
        #expect(engine.transferTable().isEmpty)
    }
}
