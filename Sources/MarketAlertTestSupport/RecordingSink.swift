import MarketAlertCore
import MarketAlertIO
import Synchronization

/// An alert sink that keeps what it was given, in order. `failing` makes it refuse events (a full disk, a
/// closed pipe), for the publisher's retry path.
package final class RecordingSink: AlertSink {
    package let name: String
    private let state = Mutex<(events: [AlertEvent], failing: Bool)>(([], false))

    package init(name: String = "recording") { self.name = name }

    package func deliver(_ event: AlertEvent) async throws {
        let accepted = state.withLock { state -> Bool in
            guard !state.failing else { return false }
            state.events.append(event)
            return true
        }
        if !accepted { throw SinkFailure(sink: name, message: "refused (test)") }
    }

    package func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }

    package var events: [AlertEvent] { state.withLock { $0.events } }

    /// Keys of the events, optionally only those with `status`.
    package func keys(status: String? = nil) -> [String] { events.filter { status == nil || $0.status == status }.map(\.key) }
}

/// Records lifecycle notifications (READY, STATUS=…, WATCHDOG, …).
package final class RecordingLifecycle: LifecycleObserver {
    private let log = Mutex<[String]>([])
    package let watchdogInterval: Duration?

    package init(watchdogInterval: Duration? = nil) { self.watchdogInterval = watchdogInterval }

    package func ready() { log.withLock { $0.append("READY") } }
    package func reloading() { log.withLock { $0.append("RELOADING") } }
    package func status(_ line: String) { log.withLock { $0.append("STATUS=\(line)") } }
    package func watchdog() { log.withLock { $0.append("WATCHDOG") } }
    package func stopping() { log.withLock { $0.append("STOPPING") } }
    package var entries: [String] { log.withLock { $0 } }
    package var statuses: [String] { entries.filter { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst(7)) } }
}
