import Foundation
import Logging
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage

/// The engine loop's inputs, counted: quotes received per exchange and transport (`.snapshot` is a REST
/// poll, `.update` a stream batch) and stream reconnects.
extension DaemonMetrics: EngineLoopObserver {
    package func loopStarted(at now: Date) {}
    package func inputEnded(at now: Date) {}
    package func loopStopped() {}

    package func inputBegan(_ event: EngineEvent?, at now: Date) {
        switch event {
        case .quotes(let exchange, let quotes, let delivery)?:
            guard !quotes.isEmpty else { return }
            countQuotes(exchange, stream: delivery != .snapshot, by: quotes.count)
        case .stream(let exchange, let live, _)?:
            if streamChanged(exchange, live: live) { count(MetricNames.streamReconnects, [("exchange", exchange.rawValue)]) }
        default:
            break
        }
    }

    package func quotesDecided(_ exchange: ExchangeID, count: Int, at now: Date) {
        guard count > 0 else { return }
        countQuotes(exchange, stream: true, by: count)
    }
}

/// The publisher's share: notifications counted by kind and status, those held back by silences by kind,
/// the engine-to-sink latency; and the silence store told which silence ends the engine handled.
package struct DaemonPublicationHooks: PublicationHooks {
    package let metrics: DaemonMetrics?
    package let silences: (any SilenceStore)?
    package let logger: Logger

    package init(metrics: DaemonMetrics?, silences: (any SilenceStore)?, logger: Logger) {
        self.metrics = metrics
        self.silences = silences
        self.logger = logger
    }

    package func delivered(_ event: AlertEvent, at: Date, complete: Bool) {
        guard let metrics else { return }
        let kind = event.kind.rawValue
        metrics.count(MetricNames.notifications, [("kind", kind), ("status", event.status)])
        let seconds = max(0, at.timeIntervalSince(event.at))
        metrics.observe(
            MetricNames.tickToNotification, [("kind", kind)], .nanoseconds(Int64(seconds * 1e9)), buckets: MetricNames.notificationBuckets)
    }

    package func heldBack(_ events: [SilencedEvent]) {
        guard let metrics else { return }
        for held in events { metrics.count(MetricNames.notificationsSilenced, [("kind", held.event.kind.rawValue)]) }
    }

    package func routed(_ event: AlertEvent, decision: RoutingDecision) {
        guard let metrics else { return }
        let kind = event.kind.rawValue
        if decision.inhibitedBy != nil { metrics.count(MetricNames.notificationsMuted, [("kind", kind), ("reason", "inhibited")]) }
        if decision.mutedByTime > 0 {
            metrics.count(MetricNames.notificationsMuted, [("kind", kind), ("reason", "time_interval")])
        }
    }

    /// Counted where the outbox queued it: a target a route names but whose own `kinds` exclude the
    /// notification got nothing and is not counted.
    package func sentByRoute(_ event: AlertEvent, to targets: [String]) {
        guard let metrics else { return }
        for target in targets { metrics.count(MetricNames.notificationsRouted, [("sink", target), ("kind", event.kind.rawValue)]) }
    }

    package func silencesEnded(_ ids: [String], at: Date) async {
        guard let silences else { return }
        do { try await silences.markSilenceEndsHandled(ids, at: at) } catch {
            logger.error("state store: cannot record the end of silences \(ids.joined(separator: ", ")): \(error)")
        }
    }
}
