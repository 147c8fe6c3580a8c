import CoreMetrics
import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import Prometheus
import Synchronization

/// The daemon's `/metrics`, in one swift-prometheus registry. Three kinds of source, none inside the pure
/// engine:
/// - counted as it happens: quotes and stream reconnects (the engine loop's observer), notifications (the
///   publisher's hooks), fetch durations and rejected responses (the producers, through swift-metrics);
/// - read at scrape time from the engine's view (source health, streams, premiums, alert levels, FX ages) and
///   from the webhook outbox (pending count, oldest age): gauges set, and removed when their series is gone.
package final class DaemonMetrics: Sendable {
    package let registry: PrometheusCollectorRegistry
    private let webhookQueue: (any WebhookQueueStore)?
    private let counters = Mutex<[String: Prometheus.Counter]>([:])
    private let histograms = Mutex<[String: DurationHistogram]>([:])
    /// `quotes_received_total` per exchange and transport: counted once per engine input, so found by a
    /// scan of a few entries comparing short strings, without hashing or building a key.
    private let quoteCounters = Mutex<[(key: QuoteCounterKey, counter: Prometheus.Counter)]>([])
    /// Last stream state per exchange (a reconnect is live after down).
    private let streams = Mutex<[ExchangeID: Bool]>([:])
    /// Scrape-time gauges, and the size of the last exposition (the next buffer's capacity).
    private let scrapeState = Mutex(ScrapeGauges())
    /// The engine's count of quote times replaced (`AlertEngine.quoteClockRejections`) already added to
    /// `quotes_rejected_total{reason="clock"}`, per exchange.
    private let clockCounted = Mutex<[ExchangeID: Int]>([:])

    package init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), webhookQueue: (any WebhookQueueStore)?) {
        self.registry = registry
        self.webhookQueue = webhookQueue
    }

    /// A swift-metrics factory on this registry (REST fetch timers get `MetricNames.fetchBuckets`).
    package var metricsFactory: PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [MetricNames.fetchDuration: MetricNames.fetchBuckets]
        return factory
    }

    private static let bootstrapped = Atomic<Bool>(false)

    /// Makes this registry the process's swift-metrics backend (once per process; later calls are ignored).
    package func bootstrapMetricsSystem() {
        guard Self.bootstrapped.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        MetricsSystem.bootstrap(metricsFactory)
    }

    package static func descriptor(_ name: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: MetricNames.help[name] ?? "")
    }

    // MARK: Counted as it happens

    /// Adds `amount` to the counter `name` with `labels` (cached by name and label values).
    package func count(_ name: String, _ labels: [(String, String)], by amount: Int = 1) {
        let cacheKey = labels.reduce(name) { $0 + "\u{1F}" + $1.1 }
        let counter = counters.withLock { cache in
            if let counter = cache[cacheKey] { return counter }
            let made = registry.makeCounter(descriptor: Self.descriptor(name), labels: labels)
            cache[cacheKey] = made
            return made
        }
        counter.increment(by: Int64(amount))
    }

    /// Adds `amount` to `quotes_received_total{exchange, transport}`.
    package func countQuotes(_ exchange: ExchangeID, stream: Bool, by amount: Int) {
        let key = QuoteCounterKey(exchange: exchange, stream: stream)
        let counter = quoteCounters.withLock { cache in
            if let found = cache.first(where: { $0.key == key }) { return found.counter }
            let made = registry.makeCounter(
                descriptor: Self.descriptor(MetricNames.quotesReceived),
                labels: [("exchange", exchange.rawValue), ("transport", stream ? "stream" : "rest")])
            cache.append((key, made))
            return made
        }
        counter.increment(by: Int64(amount))
    }

    package func observe(_ name: String, _ labels: [(String, String)], _ duration: Duration, buckets: [Duration]) {
        let cacheKey = labels.reduce(name) { $0 + "\u{1F}" + $1.1 }
        let histogram = histograms.withLock { cache in
            if let histogram = cache[cacheKey] { return histogram }
            let made = registry.makeDurationHistogram(descriptor: Self.descriptor(name), labels: labels, buckets: buckets)
            cache[cacheKey] = made
            return made
        }
        histogram.record(duration)
    }

    /// Whether a stream going live is a reconnect (it was down before), recording the new state.
    package func streamChanged(_ exchange: ExchangeID, live: Bool) -> Bool {
        streams.withLock { states in
            let before = states[exchange]
            states[exchange] = live
            return live && before == false
        }
    }

    // MARK: Scrape

    /// The exposition at `backend`'s now: the engine's view and the outbox read, the gauges updated, the
    /// registry emitted (text format 0.0.4).
    package func scrape(_ backend: APIBackend) async -> [UInt8] {
        let now = backend.clock.now()
        var view = await backend.loop.snapshot { engine in
            ScrapeView(
                sources: engine.sourceStatuses(), premium: engine.premiumGauges(), fx: Array(engine.fxRates.values),
                webhooks: engine.settings.sinks.webhooks.map(\.name) + engine.settings.sinks.email.map(\.name), clockRejections: engine.quoteClockRejections,
                tether: engine.usdtKrwRate.flatMap { rate in engine.tetherPremiumPct.map { (rate.provider, $0) } })
        }
        view.transfers = await backend.loop.snapshot { $0.transferTable() }
        view.books = await backend.loop.snapshot { $0.bookLevels() }
        countClockRejections(view.clockRejections)
        view.haLeader = backend.ha.leaderGauge
        let outbox = await outboxStats(view.webhooks, now: now)
        return scrapeState.withLock { state in
            state.update(view, outbox: outbox, now: now, registry: registry)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(state.lastSize + 1024)
            registry.emit(into: &buffer)
            state.lastSize = buffer.count
            return buffer
        }
    }

    /// Adds what the engine counted since the last scrape to `quotes_rejected_total{exchange, reason="clock"}`
    /// (the pure engine counts; the counter follows it at scrape time, so it is current whenever read).
    private func countClockRejections(_ totals: [ExchangeID: Int]) {
        let deltas = clockCounted.withLock { counted in
            totals.compactMap { exchange, total -> (ExchangeID, Int)? in
                let delta = total - (counted[exchange] ?? 0)
                guard delta > 0 else { return nil }
                counted[exchange] = total
                return (exchange, delta)
            }
        }
        for (exchange, delta) in deltas {
            FetchMetrics.rejectedQuotes(exchange, reason: "clock", count: delta)
        }
    }

    /// Pending count and oldest age per configured webhook (a webhook the store cannot read is left out).
    private func outboxStats(_ webhooks: [String], now: Date) async -> [(name: String, pending: Int, oldest: Double)] {
        guard let webhookQueue else { return [] }
        var stats: [(name: String, pending: Int, oldest: Double)] = []
        for name in webhooks {
            guard let count = try? await webhookQueue.webhookOutboxCount(webhook: name) else { continue }
            var oldest = 0.0
            if count > 0, let head = try? await webhookQueue.webhookOutboxHead(webhook: name) {
                oldest = max(0, now.timeIntervalSince(head.createdAt))
            }
            stats.append((name, count, oldest))
        }
        return stats
    }
}

/// What a scrape reads from the engine (one actor hop).
package struct ScrapeView: Sendable {
    package var sources: [SourceStatus]
    package var premium: [PremiumGauge]
    package var fx: [FXRate]
    package var webhooks: [String]
    /// Quote times the engine replaced, per exchange since start.
    package var clockRejections: [ExchangeID: Int] = [:]
    /// `marketalertd_ha_leader{instance}` (nil without `ha:`).
    package var haLeader: (instance: String, value: Double)? = nil
    /// v3 `marketalertd_transfer_ok`: the status of every asset the rules watch.
    package var transfers: [AssetTransferStatus] = []
    /// v3 `marketalertd_usdt_krw_premium_pct{provider}` (nil while USDT/KRW or USD/KRW is unknown).
    package var tether: (provider: String, pct: Double)? = nil
    /// v3 `marketalertd_book_levels`: the levels of every book the engine holds.
    package var books: [BookLevelCount] = []
}

private struct QuoteCounterKey: Hashable {
    let exchange: ExchangeID
    let stream: Bool
}
