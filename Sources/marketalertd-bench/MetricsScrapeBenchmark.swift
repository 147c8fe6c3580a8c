import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO

/// Times a `/metrics` scrape server-side (`DaemonMetrics.scrape`: the engine's view in one actor hop, the
/// webhook outbox read, the gauges set, the exposition emitted) with the evaluation benchmark's book: 8
/// exchanges × 50 assets, two rules (200 premium and level series), one webhook with queued notifications.
struct MetricsScrapeBenchmark {
    struct Result {
        var series: Int
        var bytes: Int
        var samples: Samples
    }

    let markets: BenchMarkets

    func run(iterations: Int) async throws -> Result {
        let now = Date()
        var settings = Settings()
        for exchange in EvaluationBenchmark.usdtExchanges + EvaluationBenchmark.krwExchanges {
            settings.exchanges[exchange] = ExchangeSettings(id: exchange, baseURL: URL(string: "http://127.0.0.1:1/")!)  // literal
        }
        settings.fx.providers = [FXProviderSettings(kind: .dunamu, baseURL: URL(string: "http://127.0.0.1:1/")!)]  // literal
        settings.premium = EvaluationBenchmark.premiumSettings(assets: markets.assets)
        settings.premium.maxQuoteAge = .seconds(3600)
        var hook = WebhookSettings(name: "ops")
        hook.url = URL(string: "http://127.0.0.1:1/hook")
        settings.sinks.webhooks = [hook]
        let store = try SQLiteStore(inMemory: ())
        try await store.enqueueWebhookNotifications(
            (0..<3).map { WebhookOutboxEntry(webhook: "ops", eventID: "e\($0)", body: Data("{}".utf8), expiresAt: now.addingTimeInterval(86_400)) },
            at: now.addingTimeInterval(-30))

        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let runtime = await DataPathService.make(
            settings: settings, store: nil, sinks: [], factory: ProducerFactory(quoteSource: { _ in nil }), clock: SystemClock(), logger: logger)
        let metrics = DaemonMetrics(webhookQueue: store)
        let liveness = EngineLiveness(stuckAfter: .seconds(30))
        await runtime.loop.attach(EngineLoopObservers([liveness, metrics]))
        let loop = runtime.loop
        let task = Task { await loop.run() }
        let book = EvaluationBenchmark.book(markets: markets, receivedAt: now)
        for exchange in EvaluationBenchmark.usdtExchanges + EvaluationBenchmark.krwExchanges {
            let quote = EvaluationBenchmark.krwExchanges.contains(exchange) ? "KRW" : "USDT"
            let quotes = markets.assets.compactMap { book.quote(exchange, MarketPair(base: $0, quote: quote)) }
            runtime.inbox.send(.quotes(exchange, quotes, .snapshot))
        }
        var fx = FXRateBook()
        fx.recordSuccess(.dunamu, rates: [FXRate(base: "USD", quote: "KRW", rate: Price(BenchMarkets.usdKRW)!, provider: "dunamu", at: now)], at: now)  // 1400 is valid
        runtime.inbox.send(.fxRound(fx, FXFailover(chain: [.standard(.dunamu)], currencies: ["KRW"], maxAge: .seconds(900))))
        while !(await loop.idleState.caughtUp) { await Task.yield() }

        let backend = APIBackend(
            loop: loop, inbox: runtime.inbox, liveness: liveness, clock: SystemClock(), silences: nil, metrics: metrics, access: APIAccess(),
            startedAt: now, logger: logger)
        var last: [UInt8] = []
        for _ in 0..<max(20, iterations / 10) { last = await metrics.scrape(backend) }
        var values: [Double] = []
        values.reserveCapacity(iterations)
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            let start = clock.now
            last = await metrics.scrape(backend)
            values.append((clock.now - start).seconds)
        }
        runtime.inbox.finish()
        await task.value
        let series = last.split(separator: UInt8(ascii: "\n")).filter { $0.first != UInt8(ascii: "#") }.count
        return Result(series: series, bytes: last.count, samples: Samples(values))
    }
}
