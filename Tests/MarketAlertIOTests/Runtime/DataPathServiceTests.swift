import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The runtime in virtual time: pollers and the engine's deadline timer sleep on a ManualClock, and every
/// step waits until they are asleep and the engine has caught up before the test looks or moves time.
@Suite(.serialized) struct DataPathServiceTests {
    let start = Date(timeIntervalSince1970: 1_763_800_000)

    struct Harness {
        let binance: ScriptedQuoteSource
        let bybit: ScriptedQuoteSource
        let world: RuntimeHarness
        var sink: RecordingSink { world.sink }
        var lifecycle: RecordingLifecycle { world.lifecycle }
        var clock: ManualClock { world.clock }

        /// Prices are set before the runtime starts, so the first polls cannot race the test.
        init(settings: Settings, store: (any AlertStore)?, start: Date, bybitBTC: String = "100010") async throws {
            let clock = ManualClock(now: start)
            binance = ScriptedQuoteSource(.binance, clock: clock)
            bybit = ScriptedQuoteSource(.bybit, clock: clock)
            binance.set("BTC", "100000")
            bybit.set("BTC", bybitBTC)
            world = try await RuntimeHarness.start(
                settings: settings, store: store, factory: scriptedFactory([binance, bybit]), clock: clock,
                lifecycle: RecordingLifecycle(watchdogInterval: .seconds(2)))  // as for WatchdogSec=4s
        }

        func settle(fileID: StaticString = #fileID, line: UInt = #line) async throws { try await world.settle(fileID: fileID, line: line) }
        func advance(_ seconds: Int, fileID: StaticString = #fileID, line: UInt = #line) async throws {
            try await world.advance(seconds, fileID: fileID, line: line)
        }
        func stop() async { await world.stop() }
    }

    @Test func crossingNoticeThenWarningThenClearingNotifiesThreeTimes() async throws {
        let harness = try await Harness(settings: try twoExchangeSettings(), store: try SQLiteStore(inMemory: ()), start: start)
        try await harness.settle()
        #expect(harness.sink.events.isEmpty)
        harness.bybit.set("BTC", "100060")  // 0.06%
        try await harness.advance(5)
        harness.bybit.set("BTC", "100120")  // 0.12%
        try await harness.advance(5)
        harness.bybit.set("BTC", "100030")  // 0.03% < clear 0.04
        try await harness.advance(5)
        await harness.stop()
        let events = harness.sink.events
        #expect(events.map(\.status) == ["firing", "firing", "resolved"])
        #expect(events.map(\.severity) == [.notice, .warning, .info])
        #expect(events.allSatisfy { $0.key == "premium/global/BTC" })
        #expect(events[1].premium?.thresholdPct == 0.1)
        #expect(events[1].premium?.high.exchange == "bybit")
        #expect(Set(events.map(\.id)).count == 3)
        #expect(harness.lifecycle.entries.first == "READY")
        // WatchdogSec=4s → pings every 2 s (half), from the evaluation loop: 15 s of virtual time → 8 pings.
        #expect(harness.lifecycle.entries.filter { $0 == "WATCHDOG" }.count == 8)
        #expect(harness.lifecycle.entries.last == "STOPPING")
    }

    @Test func aRestartNeitherRepeatsNorForgetsAFiringAlert() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let settings = try twoExchangeSettings()
        let first = try await Harness(settings: settings, store: try SQLiteStore(directory: directory), start: start, bybitBTC: "100200")
        try await first.advance(6)
        await first.stop()
        #expect(first.sink.keys(status: "firing") == ["premium/global/BTC"])

        let second = try await Harness(settings: settings, store: try SQLiteStore(directory: directory), start: start + 60, bybitBTC: "100200")
        try await second.advance(12)
        #expect(second.sink.events.isEmpty, "restart repeated \(second.sink.events.map(\.summary))")
        second.bybit.set("BTC", "100010")
        try await second.advance(6)
        await second.stop()
        #expect(second.sink.keys(status: "resolved") == ["premium/global/BTC"])
    }

    @Test func forDurationDelaysTheFirstNotificationToTheExactSecond() async throws {
        let harness = try await Harness(settings: try twoExchangeSettings(forDuration: "30s"), store: nil, start: start)
        try await harness.settle()
        harness.bybit.set("BTC", "100200")
        try await harness.advance(5)  // first poll sees it at start+5
        try await harness.advance(29)
        #expect(harness.sink.events.isEmpty)
        try await harness.advance(1)
        await harness.stop()
        let event = try #require(harness.sink.events.first)
        #expect(event.at == start + 35)
        #expect(event.severity == .warning)
    }

    @Test func aFailingSourceRaisesASourceAlertAndResolvesOnSuccessWithoutPremiumAlerts() async throws {
        let harness = try await Harness(settings: try twoExchangeSettings(), store: try SQLiteStore(inMemory: ()), start: start)
        try await harness.settle()
        harness.bybit.fail(SourceError(source: "bybit", kind: .decode, message: "HTML error page"))
        harness.bybit.set("BTC", "110000")  // must never be seen: the source is failing
        try await harness.advance(30)
        #expect(harness.sink.keys(status: "firing") == ["source/bybit"])
        let firing = try #require(harness.sink.events.first)
        #expect(firing.source?.error == "HTML error page")
        #expect((firing.source?.consecutiveFailures ?? 0) >= 2)
        harness.bybit.fail(nil)
        harness.bybit.set("BTC", "100010")
        try await harness.advance(120)
        await harness.stop()
        #expect(harness.sink.keys(status: "resolved") == ["source/bybit"])
        #expect(!harness.sink.events.contains { $0.kind == .premium })
    }

    @Test func reloadAddsAndRemovesPollersAndForgetsRemovedRules() async throws {
        let harness = try await Harness(settings: try twoExchangeSettings(), store: try SQLiteStore(inMemory: ()), start: start)
        try await harness.settle()
        var reloaded = try twoExchangeSettings()
        reloaded.premium.rules[0].name = "renamed"
        try await harness.world.reload(reloaded)
        harness.bybit.set("BTC", "100200")
        try await harness.advance(6)
        await harness.stop()
        #expect(harness.sink.keys(status: "firing") == ["premium/renamed/BTC"])
    }

    @Test func aNotificationCommittedButNotDeliveredBeforeACrashIsDeliveredAtTheNextStartWithItsID() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let settings = try twoExchangeSettings()
        // What a run killed between commit and delivery leaves behind: the firing state and its notification.
        let store = try SQLiteStore(directory: directory)
        var state = LeveledAlertStateMachine()
        let policy = LeveledAlertPolicy(settings.premium.rules[0])
        _ = state.observe(0.2, now: start, policy: policy)
        let lost = AlertEvent(id: "7d1f0c52-pending-event", key: "premium/global/BTC", kind: .premium, status: "firing",
                              severity: .warning, at: start, summary: "BTC premium (global) 0.200% >= 0.1%",
                              premium: PremiumDetail(
                                rule: "global", asset: "BTC", pct: 0.2, thresholdPct: 0.1, basis: .last, reference: "USD",
                                high: QuoteDetail(exchange: "bybit", market: "BTCUSDT", price: 100200, quote: "USDT", priceRef: 100200, side: "last", at: start),
                                low: QuoteDetail(exchange: "binance", market: "BTCUSDT", price: 100000, quote: "USDT", priceRef: 100000, side: "last", at: start),
                                fx: []))
        try await store.commit(
            Publication(states: [StateRecord.encode(state, key: "premium/global/BTC", kind: "premium")], events: [lost]), at: start)

        let harness = try await Harness(settings: settings, store: try SQLiteStore(directory: directory), start: start + 5, bybitBTC: "100200")
        try await harness.advance(6)
        await harness.stop()
        #expect(harness.sink.events.map(\.id) == ["7d1f0c52-pending-event"])
        #expect(try await SQLiteStore(directory: directory).pendingEvents().isEmpty)
    }

    /// Three exchanges, okx answering 100 ms after the others, in virtual time.
    static func threeExchangeSettings() throws -> Settings {
        try ConfigLoader.parse(yaml: """
            exchanges:
              binance: { poll_interval: 5s }
              bybit: { poll_interval: 5s }
              okx: { poll_interval: 5s }
            premium:
              rules:
                - { name: global, assets: [BTC], exchanges: [binance, bybit, okx], quotes: [USDT], clear_pct: 0.04 }
            """).settings
    }

    @Test func aRestartWithTheDearestExchangeAnsweringLastSendsNoFalseResolve() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func run(at: Date, okxDelay: Duration, seconds: Int) async throws -> RecordingSink {
            let clock = ManualClock(now: at)
            let sources = [ExchangeID.binance, .bybit, .okx].map { ScriptedQuoteSource($0, clock: clock) }
            sources[0].set("BTC", "100000")
            sources[1].set("BTC", "100000")
            sources[2].set("BTC", "100120")
            sources[2].answerAfter(okxDelay)
            let world = try await RuntimeHarness.start(
                settings: try Self.threeExchangeSettings(), store: try SQLiteStore(directory: directory),
                factory: scriptedFactory(sources), clock: clock)
            try await world.advance(seconds)
            #expect(world.lifecycle.statuses.first == "waiting for binance, bybit, okx")
            await world.stop()
            return world.sink
        }
        let first = try await run(at: start, okxDelay: .zero, seconds: 2)
        #expect(first.events.map(\.status) == ["firing"])
        let second = try await run(at: start + 60, okxDelay: .milliseconds(100), seconds: 12)
        #expect(second.events.isEmpty, "restart sent \(second.events.map { "\($0.status) \($0.summary)" })")
    }

    @Test func aSlowExchangeAtStartIsWaitedForAndStatusSaysSo() async throws {
        let clock = ManualClock(now: start)
        let sources = [ExchangeID.binance, .bybit, .okx].map { ScriptedQuoteSource($0, clock: clock) }
        sources[0].set("BTC", "100000")
        sources[1].set("BTC", "100080")  // 0.08% over binance alone: a notice on a partial view
        sources[2].set("BTC", "100200")  // 0.2% with okx: a warning
        sources[2].answerAfter(.seconds(2))
        // Three sleepers at rest throughout: two pollers between polls and okx inside its slow answer, then
        // okx's poller too. Counting two let a settle return while okx's answer was still on its way.
        let world = try await RuntimeHarness.start(
            settings: try Self.threeExchangeSettings(), store: nil, factory: scriptedFactory(sources), clock: clock)
        #expect(world.sink.events.isEmpty)
        try await world.advance(1)  // the status line is refreshed at most once a second
        #expect(world.sink.events.isEmpty)
        #expect(world.lifecycle.statuses.last == "waiting for okx", "\(world.lifecycle.entries) \(world.clock.pendingDeadlines) \(world.clock.now())")
        try await world.advance(1)
        await world.stop()
        #expect(world.sink.events.map(\.severity) == [.warning])
        #expect(world.sink.events.first?.premium?.high.exchange == "okx")
        #expect(world.lifecycle.statuses.last?.hasPrefix("ready: 3 exchanges ok") == true)
    }
}
