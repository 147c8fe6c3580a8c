import AsyncHTTPClient
import Logging
import NIOHTTP1
import NIOPosix
import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The HTTP server in front of a runtime in virtual time: real requests to 127.0.0.1, answers checked
/// against the engine's known state.
@Suite(.serialized) struct APIServerTests {
    let start = Date(timeIntervalSince1970: 1_763_800_000)

    struct World {
        let binance: ScriptedQuoteSource
        let bybit: ScriptedQuoteSource
        let harness: RuntimeHarness
        let api: APITestServer

        init(start: Date, bybitDelay: Duration = .zero, store: SQLiteStore? = nil, stuckAfter: Duration = .seconds(30), environment: [String: String] = [:], http: HTTPSettings = HTTPSettings(host: "127.0.0.1", port: 0)) async throws {
            let clock = ManualClock(now: start)
            binance = ScriptedQuoteSource(.binance, clock: clock)
            bybit = ScriptedQuoteSource(.bybit, clock: clock)
            binance.set("BTC", "100000")
            bybit.set("BTC", "100010")
            bybit.answerAfter(bybitDelay)
            let liveness = EngineLiveness(stuckAfter: stuckAfter)
            let metrics = DaemonMetrics(webhookQueue: store)
            harness = try await RuntimeHarness.start(
                settings: try twoExchangeSettings(), store: store, factory: scriptedFactory([binance, bybit]), clock: clock,
                // At rest either way: binance's poller asleep, and bybit's poller or its slow answer (both "poll bybit").
                prepare: { await APITestServer.prepare($0, liveness: liveness, metrics: metrics, silences: store) })
            api = try await APITestServer(
                runtime: harness.runtime, clock: clock, liveness: liveness, metrics: metrics, http: http, silences: store,
                environment: environment)
        }

        func stop() async {
            await api.stop()
            await harness.stop()
        }
    }

    @Test func unknownPathsAnswer404AndWrongMethods405InJSON() async throws {
        let world = try await World(start: start)
        let missing = try await world.api.get("/nope")
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect((missing.json["error"] as? String)?.contains("/nope") == true)
        let wrong = try await world.api.request(.POST, "/api/v1/status", body: "{}")
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "GET, HEAD")
        #expect(wrong.json["error"] != nil)
        let delete = try await world.api.request(.GET, "/api/v1/silences/abc")
        #expect(delete.status == 405)
        #expect(delete.header("Allow") == "DELETE")
        await world.stop()
    }

    /// Without hummingbird's once-a-second date cache the server still sends RFC 9110 `Date` and `Server`.
    @Test func everyAnswerCarriesADateAndTheServerName() async throws {
        let world = try await World(start: start)
        let before = Date()
        let answer = try await world.api.get("/healthz")
        let date = try #require(answer.header("Date"))
        let parsed = try #require(Self.imfFixdate.date(from: date), "not an IMF-fixdate: \(date)")
        #expect(abs(parsed.timeIntervalSince(before)) < 5)
        #expect(answer.header("Server") == "marketalertd")
        #expect(APIServer.httpDate(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")  // RFC 9110's example
        await world.stop()
    }

    static let imfFixdate: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()

    @Test func readyzWaitsForEverySourceAndNamesThoseAwaited() async throws {
        // bybit's first poll hangs (60 s of virtual time) beyond its timeout: the engine waits for it, then
        // declares it down and settles.
        let world = try await World(start: start, bybitDelay: .seconds(60))
        let waiting = try await world.api.get("/readyz")
        #expect(waiting.status == 503)
        #expect(waiting.json["awaiting"] as? [String] == ["bybit"])
        #expect(try await world.api.get("/healthz").status == 200)
        let status = try await world.api.get("/api/v1/status")
        #expect(status.json["ready"] as? Bool == false)
        try await world.harness.advance(7)  // bybit's 5 s timeout + 1 s grace
        let ready = try await world.api.get("/readyz")
        #expect(ready.status == 200, "\(ready.text)")
        #expect(ready.json["status"] as? String == "ready")
        await world.stop()
    }

    @Test func healthzTurns503WhileTheLoopIsStuckAndRecovers() async throws {
        let world = try await World(start: start, stuckAfter: .seconds(30))
        #expect(try await world.api.get("/healthz").status == 200)
        let blocking = BlockingSink()
        await world.harness.runtime.publisher.replaceSinks([blocking])
        world.bybit.set("BTC", "100200")  // 0.2%: a notification, whose delivery blocks
        await world.harness.clock.advance(by: .seconds(5))
        try await pollUntil("the blocking sink entered", timeout: .seconds(5)) { blocking.entered > 0 }
        #expect(blocking.entered == 1)
        // Busy, but not for long yet.
        #expect(try await world.api.get("/healthz").status == 200)
        await world.harness.clock.advance(by: .seconds(31))
        let stuck = try await world.api.get("/healthz")
        #expect(stuck.status == 503)
        #expect(stuck.json["status"] as? String == "stuck")
        blocking.release()
        try await pollUntil("the released loop noticed by /healthz", timeout: .seconds(5)) { world.api.liveness.verdict(now: world.harness.clock.now()) == .alive }
        #expect(try await world.api.get("/healthz").status == 200)
        await world.stop()
        #expect(world.api.liveness.verdict(now: world.harness.clock.now()) == .stopped)
    }

    @Test func statusAndAlertsShowTheEnginesView() async throws {
        let world = try await World(start: start)
        world.bybit.set("BTC", "100120")  // 0.12% ≥ 0.1 warning
        try await world.harness.advance(5)
        let status = try await world.api.get("/api/v1/status")
        #expect(status.status == 200)
        let json = status.json
        #expect(json["role"] as? String == "single")
        #expect(json["started_at"] as? String == Timestamp.rfc3339(start))
        #expect((json["version"] as? String)?.isEmpty == false)
        #expect((json["listen"] as? String)?.hasPrefix("127.0.0.1:") == true)
        let sources = try #require(json["sources"] as? [[String: Any]])
        #expect(sources.map { $0["name"] as? String } == ["binance", "bybit"])
        #expect(sources.allSatisfy { $0["up"] as? Bool == true && $0["transport"] as? String == "rest" && $0["kind"] as? String == "exchange" })
        #expect(sources.allSatisfy { $0["last_error"] is NSNull && $0["consecutive_failures"] as? Int == 0 })
        let premium = try #require((json["premium"] as? [[String: Any]])?.first)
        #expect(premium["rule"] as? String == "global")
        #expect(premium["firing_level"] as? String == "warning")
        #expect(abs((premium["pct"] as? Double ?? 0) - 0.12) < 1e-9)
        #expect((premium["high"] as? [String: Any])?["exchange"] as? String == "bybit")
        #expect((premium["low"] as? [String: Any])?["price"] as? Double == 100000)

        let alerts = try #require(try await world.api.get("/api/v1/alerts").json["alerts"] as? [[String: Any]])
        #expect(alerts.count == 1)
        let alert = try #require(alerts.first)
        #expect(alert["key"] as? String == "premium/global/BTC")
        #expect(alert["kind"] as? String == "premium")
        #expect(alert["severity"] as? String == "warning")
        #expect(alert["silenced_by"] is NSNull)
        #expect(alert["since"] as? String == Timestamp.rfc3339(start.addingTimeInterval(5)))
        #expect(alert["last_notified_at"] as? String == Timestamp.rfc3339(start.addingTimeInterval(5)))
        #expect((alert["premium"] as? [String: Any])?["threshold_pct"] as? Double == 0.1)

        world.binance.fail(SourceError(source: "binance", kind: .decode, message: "garbage"))
        try await world.harness.advance(5)
        let after = try #require(try await world.api.get("/api/v1/status").json["sources"] as? [[String: Any]])
        let binance = try #require(after.first { $0["name"] as? String == "binance" })
        #expect(binance["up"] as? Bool == false)
        #expect(binance["last_error"] as? String == "garbage")
        #expect(binance["consecutive_failures"] as? Int == 1)
        await world.stop()
    }

    @Test func premiumPctIsAbsentWhileThePremiumCannotBeComputed() async throws {
        let world = try await World(start: start)
        func series() async throws -> [String] {
            try await world.api.get("/metrics").text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        }
        let before = try await series()
        #expect(before.contains { $0.hasPrefix(#"marketalertd_premium_pct{rule="global",asset="BTC"} 0.01"#) }, "\(before)")
        #expect(before.contains(#"marketalertd_alert_firing{rule="global",asset="BTC"} 0.0"#), "\(before)")
        #expect(before.contains(#"marketalertd_source_up{source="bybit"} 1.0"#), "\(before)")
        // bybit fails from now on; its last quote goes stale after max_quote_age (30 s): no premium any more.
        world.bybit.fail(SourceError(source: "bybit", kind: .connection, message: "refused"))
        try await world.harness.advance(35)
        let after = try await series()
        #expect(!after.contains { $0.hasPrefix("marketalertd_premium_pct") }, "\(after)")
        #expect(after.contains(#"marketalertd_alert_firing{rule="global",asset="BTC"} 0.0"#))
        #expect(after.contains(#"marketalertd_source_up{source="bybit"} 0.0"#), "\(after)")
        #expect(after.contains { $0.hasPrefix(#"marketalertd_quotes_received_total{exchange="binance",transport="rest"}"#) })
        await world.stop()
    }

    @Test func streamStatesAndReconnectsAreCountedFromTheEnginesInputs() async throws {
        let world = try await World(start: start)
        // What a stream adapter sends: live, dropped, live again (one reconnect), then live once more (no change).
        for live in [true, false, true, true] { world.harness.runtime.inbox.send(.stream(.binance, live: live, reason: live ? nil : "closed")) }
        try await world.harness.settle()
        let lines = try await world.api.get("/metrics").text.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"marketalertd_stream_reconnects_total{exchange="binance"} 1"#), "\(lines)")
        #expect(lines.contains(#"marketalertd_stream_connected{exchange="binance"} 1.0"#))
        #expect(lines.contains(#"marketalertd_stream_connected{exchange="bybit"} 0.0"#))
        let sources = try #require(try await world.api.get("/api/v1/status").json["sources"] as? [[String: Any]])
        #expect(sources.first { $0["name"] as? String == "binance" }?["transport"] as? String == "stream")
        #expect(sources.first { $0["name"] as? String == "bybit" }?["transport"] as? String == "rest")
        await world.stop()
    }

    @Test func aReloadMovesTheServerToTheNewAddress() async throws {
        let world = try await World(start: start)
        let first = try #require(world.api.backend.access.listen)
        #expect(try await world.api.get("/healthz").status == 200)
        world.api.service.apply(HTTPSettings(host: "127.0.0.2", port: 0))
        try await world.api.waitForListen(count: 2)
        let second = try #require(world.api.backend.access.listen)
        #expect(second.hasPrefix("127.0.0.2:"))
        #expect(try await world.api.get("/healthz").status == 200)
        // The old address refuses connections (AsyncHTTPClient would retry a refused connection until its
        // deadline, so a plain connect checks).
        let old = try #require(HTTPSettings.parseListen(first))
        await #expect(throws: (any Error).self) {
            try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: old.host, port: old.port).get().close()
        }
        // The same address again: nothing restarts.
        world.api.service.apply(HTTPSettings(host: "127.0.0.2", port: 0))
        try await Task.sleep(for: .milliseconds(100))
        #expect(world.api.announced.count == 2)
        // No section: nothing served.
        world.api.service.apply(nil)
        try await world.api.waitForListen(count: 3)
        #expect(world.api.announced.last == .some(nil))
        await world.stop()
    }

    @Test func aTakenPortFailsTheStartWithAClearError() async throws {
        let world = try await World(start: start)
        let taken = try #require(world.api.backend.access.listen.flatMap(HTTPSettings.parseListen))
        let service = HTTPServerService(
            settings: HTTPSettings(host: taken.host, port: taken.port), backend: world.api.backend, secrets: SecretResolver(environment: [:]),
            logger: .init(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        let error = await #expect(throws: HTTPServerService.BindFailed.self) { try await service.run() }
        #expect(error?.description.contains("cannot listen on 127.0.0.1:\(taken.port)") == true)
        await world.stop()
    }
}
