import Foundation
import Testing
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// `FXMonitor` over real HTTP (MockHTTPServer) in virtual time (ManualClock + `waitForSleepers`; nothing sleeps).
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

    /// Moves virtual time to the next poll and waits until the monitor has finished it and sleeps again.
    func nextPoll(_ clock: ManualClock, _ interval: Duration) async {
        await clock.advance(by: interval)
        await clock.waitForSleepers(1)
    }

    @Test("Saturday: Dunamu serves Friday's quote, so OpenExchangeRates is used and asked once per published hour")
    func weekendUsesOXR() async throws {
        let clock = ManualClock(now: FXTest.instant("2026-03-07", "05:00:30", "UTC"))  // Saturday 14:00:30 KST
        try await FXTest.withServer(clock: clock) { server, fetcher in
            server.route("/v1/forex/recent", response: .json(FXTest.dunamuBody(
                date: "2026-03-06", time: "23:59:58", price: "1449.00", changeRate: "0.0071")))
            server.route("/api/latest.json", response: .json(FXTest.oxrBody(timestamp: 1_772_859_600, rates: ["KRW": "1450.25"])))
            server.route("/latest", response: .json(FXTest.frankfurterBody(date: "2026-03-06", rates: ["KRW": "1448.1"])))
            let health = RecordingHealth()
            let sink = RecordingSink()
            let changes = CallCounter()
            let monitor = FXMonitor(
                settings: settings(poll: .seconds(300), alerts: [FXAlertSettings(base: "USD", quote: "KRW", changePct: 0.5)]),
                sources: chain(server, fetcher), neededCurrencies: ["KRW"], clock: clock, store: try StateStore(inMemory: ()),
                sink: sink, health: health, logger: FXTest.quiet, random: { 0.5 }, onRatesChanged: { await changes.increment() })
            let task = Task { await monitor.run() }
            await clock.waitForSleepers(1)

            let rate = try #require(await monitor.currentUSDRates()["KRW"])
            #expect(rate.provider == "openexchangerates")
            #expect(rate.rate == Price("1450.25"))
            #expect(await health.reports == [.init(source: "dunamu", error: nil), .init(source: "openexchangerates", error: nil)])
            #expect(server.requests(to: "/latest").isEmpty)
            #expect(server.requests(to: "/api/latest.json").first?.header("Authorization") == "Token \(Self.appID)")
            #expect(await changes.count == 1)
            // Dunamu's +0.71% is stale and OpenExchangeRates states no change: the move alert stays quiet.
            #expect(await sink.events.isEmpty)

            // Eleven more polls up to 05:55:30: the 05:00 rate is current, OpenExchangeRates is not asked.
            for _ in 0..<11 { await nextPoll(clock, .seconds(300)) }
            #expect(server.requests(to: "/api/latest.json").count == 1)
            #expect(server.requests(to: "/v1/forex/recent").count == 12)
            #expect(await changes.count == 1)

            // 06:00:30: the 06:00 rate is due.
            server.route("/api/latest.json", response: .json(FXTest.oxrBody(timestamp: 1_772_863_200, rates: ["KRW": "1451"])))
            await nextPoll(clock, .seconds(300))
            #expect(server.requests(to: "/api/latest.json").count == 2)
            #expect(await monitor.currentUSDRates()["KRW"]?.rate == Price("1451"))
            #expect(await changes.count == 2)
            #expect(server.requests(to: "/latest").isEmpty)

            task.cancel()
            await task.value
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
            let health = RecordingHealth()
            let monitor = FXMonitor(
                settings: settings(poll: .seconds(60)), sources: chain(server, fetcher), neededCurrencies: ["KRW"], clock: clock,
                store: nil, sink: RecordingSink(), health: health, logger: FXTest.quiet, random: { 0.5 })
            let task = Task { await monitor.run() }
            await clock.waitForSleepers(1)

            #expect(await monitor.currentUSDRates()["KRW"]?.provider == "frankfurter")
            let first = await health.reports
            #expect(first.map(\.source) == ["dunamu", "openexchangerates", "frankfurter"])
            #expect(first[0].error?.kind == .http(status: 503))
            #expect(first[1].error?.retryAfter == .seconds(1800))
            #expect(first[2].error == nil)

            await nextPoll(clock, .seconds(60))   // t0+60: Dunamu retried (backoff 60s) and fails again → 120s
            await nextPoll(clock, .seconds(60))   // t0+120: Dunamu in backoff; Frankfurter's rate is current
            #expect(server.requests(to: "/v1/forex/recent").count == 2)
            #expect(server.requests(to: "/api/latest.json").count == 1)
            #expect(server.requests(to: "/latest").count == 1)

            server.route("/v1/forex/recent", response: .json(FXTest.dunamuBody(date: "2026-03-10", time: "11:02:40", price: "1395.50")))
            await nextPoll(clock, .seconds(60))   // t0+180: Dunamu retried and recovers
            #expect(server.requests(to: "/v1/forex/recent").count == 3)
            #expect(await monitor.currentUSDRates()["KRW"]?.provider == "dunamu")
            #expect(await health.reports.last == .init(source: "dunamu", error: nil))
            #expect(server.requests(to: "/api/latest.json").count == 1)

            task.cancel()
            await task.value
        }
    }

    @Test("The move alert fires once, holds in the hysteresis band, resolves, and its state survives a restart")
    func moveAlert() async throws {
        let clock = ManualClock(now: FXTest.instant("2026-03-10", "02:00:00", "UTC"))  // Tuesday 11:00 KST
        let alert = FXAlertSettings(base: "USD", quote: "KRW", changePct: 0.5)
        let store = try StateStore(inMemory: ())
        func storedFiring() -> Bool? {
            (try? store.loadStates(kind: "fx", as: LeveledAlertStateMachine.self))?.states["fx/USD-KRW"]?.isFiring
        }
        try await FXTest.withServer(clock: clock) { server, fetcher in
            func serve(time: String, price: String, change: String) {
                server.route("/v1/forex/recent", response: .json(FXTest.dunamuBody(date: "2026-03-10", time: time, price: price, changeRate: change)))
            }
            let dunamu: [any RateSource] = [DunamuRateSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher)]
            let sink = RecordingSink()
            serve(time: "10:59:30", price: "1395.50", change: "0.0062")
            let first = FXMonitor(
                settings: settings(poll: .seconds(60), alerts: [alert]), sources: dunamu, neededCurrencies: [], clock: clock,
                store: store, sink: sink, health: RecordingHealth(), logger: FXTest.quiet, random: { 0.5 })
            let task = Task { await first.run() }
            await clock.waitForSleepers(1)
            await nextPoll(clock, .seconds(60))  // same quote: no second notification
            let fired = await sink.events
            #expect(fired.count == 1)
            #expect(fired.first?.status == "firing")
            #expect(fired.first?.key == "fx/USD-KRW")
            #expect(fired.first?.fx?.changePct == 0.62)
            #expect(fired.first?.summary == "USD/KRW 1,395.5 moved +0.62% vs previous close (dunamu, 2026-03-10 10:59 KST) >= 0.5%")
            #expect(storedFiring() == true)
            task.cancel()
            await task.value

            // A restarted monitor with the same store does not notify again for the same move.
            let second = FXMonitor(
                settings: settings(poll: .seconds(60), alerts: [alert]), sources: dunamu, neededCurrencies: [], clock: clock,
                store: store, sink: sink, health: RecordingHealth(), logger: FXTest.quiet, random: { 0.5 })
            await clock.advance(by: .seconds(60))
            await second.pollOnce()
            #expect(await sink.events.count == 1)

            serve(time: "11:03:10", price: "1393.20", change: "0.0045")  // inside the band (>= 0.4%)
            await clock.advance(by: .seconds(60))
            await second.pollOnce()
            #expect(await sink.events.count == 1)
            #expect(storedFiring() == true)

            serve(time: "11:04:20", price: "1390.10", change: "0.0030")
            await clock.advance(by: .seconds(60))
            await second.pollOnce()
            let events = await sink.events
            #expect(events.map(\.status) == ["firing", "resolved"])
            #expect(events.last?.fx?.rate == Decimal(string: "1390.10"))
            #expect(storedFiring() == false)
        }
    }
}
