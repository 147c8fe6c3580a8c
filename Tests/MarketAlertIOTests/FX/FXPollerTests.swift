import Foundation
import Testing
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// `FXMonitor` over real HTTP (MockHTTPServer) in virtual time (ManualClock, each step settled by name: "poll fx" asleep; nothing sleeps).
@Suite("FX monitor")
struct FXMonitorTests {
    static let appID = "0badc0de0badc0de0badc0de0badc0de"

    func settings(poll: Duration, alerts: [FXAlertSettings] = []) -> FXSettings {
        var fx = FXSettings()
        fx.pollInterval = poll
        fx.maxAge = .seconds(15 * 60)
        fx.alerts = alerts
        return fx
    }

    func chain(_ server: MockHTTPServer, _ fetcher: HTTPFetcher) -> [any RateSource] {
        [
            DunamuRateSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher),
            OpenExchangeRatesSource(baseURL: server.baseURL, appID: Self.appID, timeout: .seconds(5), fetcher: fetcher),
            FrankfurterRateSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher),
        ]
    }

    /// FX-only settings (the providers' URLs are not used: the factory builds the chain).
    func runtimeSettings(_ fx: FXSettings, server: MockHTTPServer) -> Settings {
        var settings = Settings()
        settings.fx = fx
        settings.fx.providers = [FXProviderSettings(kind: .dunamu, baseURL: server.baseURL)]
        return settings
    }

    /// The runtime with only the FX poller, over `sources`.
    func start(_ fx: FXSettings, server: MockHTTPServer, sources: [any RateSource], clock: ManualClock, store: (any AlertStore)? = nil, sink: RecordingSink = RecordingSink()) async throws -> RuntimeHarness {
        let factory = ProducerFactory(quoteSource: { _ in nil }, fxPoller: { settings in
            FXPoller(settings: settings.fx, sources: sources, currencies: ["KRW"], clock: clock, logger: FXTest.quiet, random: { 0.5 })
        })
        return try await RuntimeHarness.start(
            settings: runtimeSettings(fx, server: server), store: store, factory: factory, clock: clock, sink: sink)
    }

    /// Moves virtual time to the next poll and waits until the round is handled and the poller sleeps again.
    func nextPoll(_ world: RuntimeHarness, _ interval: Duration, fileID: StaticString = #fileID, line: UInt = #line) async throws {
        try await world.advance(to: world.clock.now().addingTimeInterval(interval.seconds), fileID: fileID, line: line)
    }

    func krw(_ world: RuntimeHarness) async -> FXRate? { await world.runtime.loop.snapshot { $0.fxRates["KRW"] } }

    func health(_ world: RuntimeHarness, _ source: String) async -> SourceHealth? {
        await world.runtime.loop.snapshot { $0.sourceHealth[source] }
    }

    @Test("Saturday: Dunamu serves Friday's quote, so OpenExchangeRates is used and asked once per published hour")
    func weekendUsesOXR() async throws {
        let clock = ManualClock(now: FXTest.instant("2026-03-07", "05:00:30", "UTC"))  // Saturday 14:00:30 KST
        try await FXTest.withServer(clock: clock) { server, fetcher in
            server.route("/v1/forex/recent", response: .json(FXTest.dunamuBody(
                date: "2026-03-06", time: "23:59:58", price: "1449.00", changeRate: "0.0071")))
            server.route("/api/latest.json", response: .json(FXTest.oxrBody(timestamp: 1_772_859_600, rates: ["KRW": "1450.25"])))
            server.route("/latest", response: .json(FXTest.frankfurterBody(date: "2026-03-06", rates: ["KRW": "1448.1"])))
            let world = try await start(
                settings(poll: .seconds(300), alerts: [FXAlertSettings(base: "USD", quote: "KRW", changePct: 0.5)]), server: server,
                sources: chain(server, fetcher), clock: clock, store: try SQLiteStore(inMemory: ()))

            let rate = try #require(await krw(world))
            #expect(rate.provider == "openexchangerates")
            #expect(rate.rate == Price("1450.25"))
            #expect(await health(world, "dunamu")?.lastSuccess != nil)
            #expect(await health(world, "openexchangerates")?.lastSuccess != nil)
            #expect(await health(world, "frankfurter") == nil)
            #expect(server.requests(to: "/latest").isEmpty)
            #expect(server.requests(to: "/api/latest.json").first?.header("Authorization") == "Token \(Self.appID)")
            // Dunamu's +0.71% is stale and OpenExchangeRates states no change: the move alert stays quiet.
            #expect(world.sink.events.isEmpty)

            // Eleven more polls up to 05:55:30: the 05:00 rate is current, OpenExchangeRates is not asked.
            for _ in 0..<11 { try await nextPoll(world, .seconds(300)) }
            #expect(server.requests(to: "/api/latest.json").count == 1)
            #expect(server.requests(to: "/v1/forex/recent").count == 12)
            #expect(await krw(world)?.rate == Price("1450.25"))

            // 06:00:30: the 06:00 rate is due.
            server.route("/api/latest.json", response: .json(FXTest.oxrBody(timestamp: 1_772_863_200, rates: ["KRW": "1451"])))
            try await nextPoll(world, .seconds(300))
            #expect(server.requests(to: "/api/latest.json").count == 2)
            #expect(await krw(world)?.rate == Price("1451"))
            #expect(server.requests(to: "/latest").isEmpty)
            await world.stop()
        }
    }

    @Test("Failures back off (honouring Retry-After) while Frankfurter fills in; Dunamu takes over when it recovers")
    func backoffAndRecovery() async throws {
        let t0 = FXTest.instant("2026-03-10", "02:00:00", "UTC")  // Tuesday 11:00 KST
        let clock = ManualClock(now: t0)
        try await FXTest.withServer(clock: clock) { server, fetcher in
            server.route("/v1/forex/recent", response: .json(#"{"status":503,"error":"Service Unavailable","message":"maintenance"}"#, status: 503))
            server.route("/api/latest.json", response: MockHTTPServer.Response(
                status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "1800")],
                body: Data(#"{"error":true,"status":429,"message":"too_many_requests"}"#.utf8)))
            server.route("/latest", response: .json(FXTest.frankfurterBody(date: "2026-03-09", rates: ["KRW": "1392.4"])))
            // A move alert no rate here reaches: it only makes the runtime run the FX poller.
            let world = try await start(
                settings(poll: .seconds(60), alerts: [FXAlertSettings(base: "USD", quote: "KRW", changePct: 50)]), server: server,
                sources: chain(server, fetcher), clock: clock)

            #expect(await krw(world)?.provider == "frankfurter")
            #expect(await health(world, "dunamu")?.lastError?.contains("503") == true)
            #expect(await health(world, "openexchangerates")?.lastError?.contains("1800") == true)
            #expect(await health(world, "frankfurter")?.consecutiveFailures == 0)

            try await nextPoll(world, .seconds(60))   // t0+60: Dunamu retried (backoff 60s) and fails again → 120s
            try await nextPoll(world, .seconds(60))   // t0+120: Dunamu in backoff; Frankfurter's rate is current
            #expect(server.requests(to: "/v1/forex/recent").count == 2)
            #expect(server.requests(to: "/api/latest.json").count == 1)
            #expect(server.requests(to: "/latest").count == 1)

            server.route("/v1/forex/recent", response: .json(FXTest.dunamuBody(date: "2026-03-10", time: "11:02:40", price: "1395.50")))
            try await nextPoll(world, .seconds(60))   // t0+180: Dunamu retried and recovers
            #expect(server.requests(to: "/v1/forex/recent").count == 3)
            #expect(await krw(world)?.provider == "dunamu")
            #expect(await health(world, "dunamu")?.consecutiveFailures == 0)
            #expect(server.requests(to: "/api/latest.json").count == 1)
            #expect(world.sink.events.isEmpty)
            await world.stop()
        }
    }

    @Test("The move alert fires once, holds in the hysteresis band, resolves, and its state survives a restart")
    func moveAlert() async throws {
        let clock = ManualClock(now: FXTest.instant("2026-03-10", "02:00:00", "UTC"))  // Tuesday 11:00 KST
        let alert = FXAlertSettings(base: "USD", quote: "KRW", changePct: 0.5)
        let store = try SQLiteStore(inMemory: ())
        func storedFiring() async -> Bool? {
            (try? await store.loadStates(kind: "fx", as: LeveledAlertStateMachine.self))?.states["fx/USD-KRW"]?.isFiring
        }
        try await FXTest.withServer(clock: clock) { server, fetcher in
            func serve(time: String, price: String, change: String) {
                server.route("/v1/forex/recent", response: .json(FXTest.dunamuBody(date: "2026-03-10", time: time, price: price, changeRate: change)))
            }
            let dunamu: [any RateSource] = [DunamuRateSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher)]
            let sink = RecordingSink()
            serve(time: "10:59:30", price: "1395.50", change: "0.0062")
            let first = try await start(settings(poll: .seconds(60), alerts: [alert]), server: server, sources: dunamu, clock: clock, store: store, sink: sink)
            try await nextPoll(first, .seconds(60))  // same quote: no second notification
            let fired = sink.events
            #expect(fired.count == 1)
            #expect(fired.first?.status == "firing")
            #expect(fired.first?.key == "fx/USD-KRW")
            #expect(fired.first?.fx?.changePct == 0.62)
            #expect(fired.first?.summary == "USD/KRW 1,395.5 moved +0.62% vs previous close (dunamu, 2026-03-10 10:59 KST) >= 0.5%")
            #expect(await storedFiring() == true)
            await first.stop()

            // A restarted runtime with the same store does not notify again for the same move.
            await clock.advance(by: .seconds(60))
            let second = try await start(settings(poll: .seconds(60), alerts: [alert]), server: server, sources: dunamu, clock: clock, store: store, sink: sink)
            #expect(sink.events.count == 1)

            serve(time: "11:03:10", price: "1393.20", change: "0.0045")  // inside the band (>= 0.4%)
            try await nextPoll(second, .seconds(60))
            #expect(sink.events.count == 1)
            #expect(await storedFiring() == true)

            serve(time: "11:04:20", price: "1390.10", change: "0.0030")
            try await nextPoll(second, .seconds(60))
            let events = sink.events
            #expect(events.map(\.status) == ["firing", "resolved"])
            #expect(events.last?.fx?.rate == Decimal(string: "1390.10"))
            #expect(await storedFiring() == false)
            await second.stop()
        }
    }
}
