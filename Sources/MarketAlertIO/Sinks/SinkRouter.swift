import MarketAlertCore

/// The sink the supervisor talks to. Holds the current set of sinks and swaps it on reload, so components
/// keep one stable reference.
package actor SinkRouter: AlertSink {
    package nonisolated let name = "router"
    private var sinks: [any AlertSink]

    package init(_ sinks: [any AlertSink]) { self.sinks = sinks }

    package func replace(with sinks: [any AlertSink]) { self.sinks = sinks }

    package func deliver(_ event: AlertEvent) async {
        let current = sinks
        for sink in current { await sink.deliver(event) }
    }
}
