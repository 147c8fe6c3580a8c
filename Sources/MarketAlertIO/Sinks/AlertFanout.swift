import MarketAlertCore

/// Delivers each event to every sink in order. Sinks return quickly (slow delivery is queued inside them),
/// so one sink never delays another.
package struct AlertFanout: AlertSink {
    package let name = "fanout"
    package var sinks: [any AlertSink]

    package init(_ sinks: [any AlertSink]) { self.sinks = sinks }

    package func deliver(_ event: AlertEvent) async {
        for sink in sinks { await sink.deliver(event) }
    }
}
