import AsyncHTTPClient
import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// A server on 127.0.0.1 that sends the head at once and then the body one byte a second: every request
/// (exchanges, FX, TWSE, webhooks) ends within its timeout, body included. Before, only the head was bounded
/// and such a body held the poller for as many seconds as it had bytes.
@Suite("Whole-request timeouts against a dripping body", .timeLimit(.minutes(2)))
struct WholeRequestTimeoutTests {
    static let timeout: Duration = .milliseconds(500)
    /// The timeout plus room for a loaded machine (40×); far below the minutes each dripping body would take.
    static let bound: Duration = .seconds(20)
    /// The webhook cases' timeout: the status arrives in the head, sent at once (see `webhook`).
    static let webhookTimeout: Duration = .seconds(3)
    /// The timeout of the cases that check the server saw the request (exchanges, FX): long enough that the
    /// request reaches the server (connection, request written, head read) on a loaded machine before it
    /// ends, which 500 ms was not when the unit suite ran in parallel; still far below the minute each
    /// dripping body would take.
    static let requestTimeout: Duration = .milliseconds(1500)

    /// Every body used here is over 80 bytes: it would drip for more than a minute.
    static func dripping(_ body: String, status: Int = 200) -> MockHTTPServer.Response {
        MockHTTPServer.Response(status: status, body: Data(body.utf8), drip: .seconds(1))
    }

    @Test(arguments: ExchangeCase.all)
    func exchange(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(Self.dripping(exchange.body(exchange.goodRows)), on: server)
            let source = exchange.source(server, fetcher, timeout: Self.requestTimeout)
            let started = ContinuousClock.now
            let error = await sourceError { () async throws(SourceError) in try await source.fetchQuotes(for: exchange.watched) }
            let elapsed = ContinuousClock.now - started
            #expect(error?.kind == .timeout, "\(String(describing: error))")
            #expect(error?.source == exchange.id.rawValue)
            #expect(elapsed < Self.bound, "took \(elapsed)")
            #expect(elapsed >= Self.requestTimeout)
            #expect(!server.requests.isEmpty)
        }
    }

    @Test func fxProviders() async throws {
        try await FXTest.withServer { server, fetcher in
            let body = FXTest.oxrBody(timestamp: 1_772_859_600, rates: ["KRW": "1466.5"])
            server.route("/api/latest.json", response: Self.dripping(body))
            server.route("/v1/forex/recent", response: Self.dripping(FXTest.dunamuBody(date: "2026-03-10", time: "11:47:00", price: "1466.5")))
            server.route("/latest", response: Self.dripping(FXTest.frankfurterBody(date: "2026-03-10", rates: ["KRW": "1466.5"])))
            let sources: [any RateSource] = [
                OpenExchangeRatesSource(baseURL: server.baseURL, appID: "test-app-id-123", timeout: Self.requestTimeout, fetcher: fetcher),
                DunamuRateSource(baseURL: server.baseURL, timeout: Self.requestTimeout, fetcher: fetcher),
                FrankfurterRateSource(baseURL: server.baseURL, timeout: Self.requestTimeout, fetcher: fetcher),
            ]
            for source in sources {
                let started = ContinuousClock.now
                let error = await sourceError { () async throws(SourceError) in _ = try await source.fetchUSDRates(for: ["KRW"]) }
                let elapsed = ContinuousClock.now - started
                #expect(error?.kind == .timeout, "\(source.provider): \(String(describing: error))")
                #expect(elapsed < Self.bound, "\(source.provider) took \(elapsed)")
            }
            #expect(Set(server.requests.map(\.path)).count == 3, "every provider was asked: \(server.requests.map(\.path))")
        }
    }

    @Test func twse() async throws {
        let server = try await MockHTTPServer()
        server.route("/rwd/zh/announcement/publicForm", response: Self.dripping(try String(
            decoding: Fixtures.data("twse/publicForm-reconstructed.json"), as: UTF8.self)))
        var settings = IPOTestKit.settings(server)
        settings.sources[0].timeout = Self.timeout
        let source = TWSEPublicFormSource(
            settings: settings.sources[0], calendar: MarketCalendar(timeZone: IPOTestKit.taipei),
            excludeNamePatterns: settings.excludeNamePatterns, fetcher: IPOTestKit.fetcher(SystemClock()))
        let started = ContinuousClock.now
        let error = await sourceError { () async throws(SourceError) in _ = try await source.fetch(year: 2026) }
        let elapsed = ContinuousClock.now - started
        #expect(error?.kind == .timeout, "\(String(describing: error))")
        #expect(elapsed < Self.bound, "took \(elapsed)")
        await server.shutdown()
    }

    /// A webhook receiver that drips its answer: a 503 is a retryable failure and a 200 a delivery, both
    /// decided within the webhook's timeout.
    @Test(arguments: [(503, false), (200, true)])
    func webhook(status: Int, delivered: Bool) async throws {
        let harness = try await OutboxHarness()
        harness.receiver.script([], then: Self.dripping(String(repeating: "x", count: 1_000), status: status))
        // The receiver's status decides, not its body (which would drip for 1,000 s). The head is sent at once,
        // but a loaded machine (the unit suite beside a release build) once took over 500 ms to deliver it,
        // and the 200 was then a timeout: this case waits up to 3 s for the head, still far below the body.
        let outbox = harness.outbox([harness.target(timeout: Self.webhookTimeout)])
        let run = Task { await outbox.run() }
        var reports = harness.reports.stream.makeAsyncIterator()
        let started = ContinuousClock.now
        try await outbox.deliver(SampleEvents.premium())
        let report = try await reports.expectNext()
        let elapsed = ContinuousClock.now - started
        if delivered {
            guard case .delivered = report else { Issue.record("expected a delivery, got \(report)"); return }
        } else {
            guard case .retrying(_, _, 1, _, let error) = report else { Issue.record("expected a retry, got \(report)"); return }
            #expect(error.hasPrefix("HTTP 503"))
        }
        #expect(elapsed < Self.bound, "took \(elapsed)")
        run.cancel()
        await run.value
        await harness.shutdown()
    }
}
