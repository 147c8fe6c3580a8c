import MarketAlertCore
import MarketAlertIO

/// An alert sink that keeps what it was given, in order.
package actor RecordingSink: AlertSink {
    package nonisolated let name = "recording"
    package private(set) var events: [AlertEvent] = []

    package init() {}

    package func deliver(_ event: AlertEvent) async { events.append(event) }
}
