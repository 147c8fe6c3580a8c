import Foundation
import MarketAlertCore
import Synchronization

/// Between a stream's reader and its consumer: the reader never waits for the consumer. Quotes coalesce
/// per market (latest value wins) while the consumer is busy, so a 300-message/s market cannot back it up;
/// `.live` and `.down` keep their order relative to the quotes around them.
final class StreamMailbox: Sendable {
    private struct State {
        /// Updates ready in order (quotes that preceded a status change are sealed into a batch first).
        var ready: [StreamUpdate] = []
        /// The latest quote per market index not yet handed over, and the indices in arrival order.
        var slots: [Quote?]
        var dirty: [Int] = []
    }

    private let state: Mutex<State>
    private let signal: AsyncStream<Void>.Continuation
    private let signals: AsyncStream<Void>

    init(markets: Int) {
        var slots: [Quote?] = []
        slots.reserveCapacity(markets)
        for _ in 0..<markets { slots.append(nil) }
        state = Mutex(State(slots: slots))
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The latest quote of market `index`.
    func post(_ quote: Quote, at index: Int) {
        state.withLock { state in
            guard index < state.slots.count else { return }
            if state.slots[index] == nil { state.dirty.append(index) }
            state.slots[index] = quote
        }
        signal.yield()
    }

    /// A status change, after every quote posted before it.
    func post(_ update: StreamUpdate) {
        state.withLock { state in
            Self.seal(&state)
            state.ready.append(update)
        }
        signal.yield()
    }

    /// Hands updates to `emit` one at a time until cancelled.
    func deliver(to emit: @escaping @Sendable (StreamUpdate) async -> Void) async {
        for await _ in signals {
            while !Task.isCancelled, let update = take() {
                await emit(update)
            }
            if Task.isCancelled { return }
        }
    }

    func finish() { signal.finish() }

    private func take() -> StreamUpdate? {
        state.withLock { state in
            if state.ready.isEmpty { Self.seal(&state) }
            return state.ready.isEmpty ? nil : state.ready.removeFirst()
        }
    }

    private static func seal(_ state: inout State) {
        guard !state.dirty.isEmpty else { return }
        var batch: [Quote] = []
        batch.reserveCapacity(state.dirty.count)
        for index in state.dirty {
            if let quote = state.slots[index] { batch.append(quote) }
            state.slots[index] = nil
        }
        state.dirty.removeAll(keepingCapacity: true)
        state.ready.append(.quotes(batch))
    }
}
