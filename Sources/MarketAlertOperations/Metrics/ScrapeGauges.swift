import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import Prometheus

/// The gauges set at scrape time, per family: a series is created when it first appears, set on every
/// scrape, and unregistered when it is gone (`premium_pct` while the premium cannot be computed, a source
/// or webhook removed by a reload).
package struct ScrapeGauges {
    private var families: [String: [String: Gauge]] = [:]
    package var lastSize = 0

    package mutating func update(_ view: ScrapeView, outbox: [(name: String, pending: Int, oldest: Double)], now: Date, registry: PrometheusCollectorRegistry) {
        var batch = Batch(registry: registry)
        for source in view.sources {
            // A source never fetched (an FX fallback not needed yet) has no last fetch to report.
            if source.heard { batch.set(MetricNames.sourceUp, [("source", source.name)], source.up ? 1 : 0) }
            if source.kind == .exchange {
                batch.set(MetricNames.streamConnected, [("exchange", source.name)], source.streamConnected ? 1 : 0)
            }
        }
        for row in view.premium {
            let labels = [("rule", row.rule), ("asset", row.asset)]
            if let pct = row.pct { batch.set(MetricNames.premiumPct, labels, pct) }
            if let pct = row.pct, row.executable { batch.set(MetricNames.executablePct, labels, pct) }
            batch.set(MetricNames.alertFiring, labels, row.firingLevel.map { Double($0 + 1) } ?? 0)
        }
        for rate in view.fx {
            batch.set(MetricNames.fxRateAge, [("pair", rate.pair), ("provider", rate.provider)], max(0, now.timeIntervalSince(rate.at)))
        }
        for webhook in outbox {
            batch.set(MetricNames.webhookPending, [("webhook", webhook.name)], Double(webhook.pending))
            batch.set(MetricNames.webhookOldestPending, [("webhook", webhook.name)], webhook.oldest)
        }
        if let ha = view.haLeader { batch.set(MetricNames.haLeader, [("instance", ha.instance)], ha.value) }
        for status in view.transfers {
            for (direction, state) in [("withdraw", status.withdraw), ("deposit", status.deposit)] where state != .unknown {
                let labels = [("exchange", status.exchange.rawValue), ("asset", status.asset), ("direction", direction)]
                batch.set(MetricNames.transferOK, labels, state == .ok ? 1 : 0)
            }
        }
        for book in view.books {
            batch.set(MetricNames.bookLevels, [("exchange", book.exchange.rawValue), ("market", book.market), ("side", "bid")], Double(book.bids))
            batch.set(MetricNames.bookLevels, [("exchange", book.exchange.rawValue), ("market", book.market), ("side", "ask")], Double(book.asks))
        }
        if let tether = view.tether { batch.set(MetricNames.usdtKrwPremiumPct, [("provider", tether.provider)], tether.pct) }
        // v3: assets per rule (rows are rule × asset; an `assets: all` rule's count changes with its list).
        var watched: [String: Int] = [:]
        for row in view.premium { watched[row.rule, default: 0] += 1 }
        for (rule, count) in watched { batch.set(MetricNames.watchedAssets, [("rule", rule)], Double(count)) }
        apply(batch)
    }

    /// Sets every series of `batch`, creating the new ones, and unregisters the series it no longer has.
    private mutating func apply(_ batch: Batch) {
        for name in Set(families.keys).union(batch.values.keys) {
            var family = families[name] ?? [:]
            let wanted = batch.values[name] ?? [:]
            for (key, series) in wanted {
                let gauge = family[key] ?? batch.registry.makeGauge(descriptor: DaemonMetrics.descriptor(name), labels: series.labels)
                gauge.set(series.value)
                family[key] = gauge
            }
            for (key, gauge) in family where wanted[key] == nil {
                batch.registry.unregisterGauge(gauge)
                family[key] = nil
            }
            families[name] = family.isEmpty ? nil : family
        }
    }

    /// The gauge values one scrape wants, by family and label values.
    package struct Batch {
        package let registry: PrometheusCollectorRegistry
        package var values: [String: [String: (labels: [(String, String)], value: Double)]] = [:]

        package mutating func set(_ name: String, _ labels: [(String, String)], _ value: Double) {
            let key = labels.count == 1 ? labels[0].1 : labels.map(\.1).joined(separator: "\u{1F}")
            values[name, default: [:]][key] = (labels, value)
        }
    }
}
