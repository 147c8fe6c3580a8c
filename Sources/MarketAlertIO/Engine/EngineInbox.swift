import MarketAlertCore
import Synchronization

/// The one stream into the alert engine. Producers hold a copy and `send`; only `EngineLoop` reads.
package struct EngineInbox: Sendable {
    enum Input: Sendable {
        case event(EngineEvent)
        /// A deadline the loop scheduled may have fallen due.
        case wake
    }

    let continuation: AsyncStream<Input>.Continuation
    let stream: AsyncStream<Input>
    private let counter = SentCounter()

    package init() {
        (stream, continuation) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded)
    }

    package func send(_ event: EngineEvent) {
        if case .enqueued = continuation.yield(.event(event)) { counter.value.add(1, ordering: .relaxed) }
    }

    /// Inputs accepted so far (with `EngineLoop.handled`, tells tests when the engine has caught up).
    package var sent: Int { counter.value.load(ordering: .relaxed) }

    func wake() {
        if case .enqueued = continuation.yield(.wake) { counter.value.add(1, ordering: .relaxed) }
    }

    /// No more events: the loop handles what is queued, then returns.
    package func finish() { continuation.finish() }
}

private final class SentCounter: Sendable {
    let value = Atomic<Int>(0)
}
