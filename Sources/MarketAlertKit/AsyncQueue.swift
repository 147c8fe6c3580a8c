import Synchronization

/// An unbounded queue with one consumer, for the data path's per-frame hops (a connection's reports to its
/// stream driver, the producers' inputs to the engine loop).
///
/// Not `AsyncStream`: this queue is compiled with the module for the concrete element (no generic metadata
/// look-up per `yield` or `next`) and allocates nothing per element once its buffer has grown
/// (docs/design-history.md says why that matters).
///
/// Semantics follow `AsyncStream` with `.unbounded` buffering: `yield` never waits; `finish` lets the
/// consumer drain what is queued and then end; a consumer cancelled while waiting (or already cancelled
/// when it asks) ends at once and the queue is finished, its remaining elements dropped.
package final class AsyncQueue<Element: Sendable>: AsyncSequence, Sendable {
    // Inlinable, so each client module specializes the queue for its element: across a module boundary an
    // unspecialized generic would look up metadata at every `yield` and `next`.
    @usableFromInline
    struct State {
        @usableFromInline var buffer: [Element] = []
        /// Index of the first unread element in `buffer` (read elements are dropped in bulk).
        @usableFromInline var head = 0
        @usableFromInline var waiter: UnsafeContinuation<Element?, Never>?
        @usableFromInline var finished = false

        @usableFromInline init() {}
    }

    @usableFromInline let state = Mutex(State())

    @inlinable package init() {}

    /// Queues `element`; false (and dropped) once the queue is finished.
    @inlinable @discardableResult
    package func yield(_ element: Element) -> Bool {
        let outcome: (accepted: Bool, waiter: UnsafeContinuation<Element?, Never>?) = state.withLock { state in
            guard !state.finished else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.buffer.append(element)
            return (true, nil)
        }
        outcome.waiter?.resume(returning: element)
        return outcome.accepted
    }

    /// No more elements: the consumer gets what is queued, then `nil`.
    @inlinable package func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.buffer.count > state.head ? nil : state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next element, waiting for one; nil once finished and drained, or when the consumer is cancelled.
    /// Runs in the caller's isolation (an actor consuming it does not hop off and back for each element).
    @inlinable package func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                let ready: Element?? = state.withLock { state in
                    if state.buffer.count > state.head {
                        let element = state.buffer[state.head]
                        state.head += 1
                        if state.head == state.buffer.count {
                            state.buffer.removeAll(keepingCapacity: true)
                            state.head = 0
                        } else if state.head >= 1024, state.head * 2 >= state.buffer.count {
                            state.buffer.removeFirst(state.head)
                            state.head = 0
                        }
                        return .some(element)
                    }
                    if state.finished { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
                state.finished = true
                state.buffer.removeAll()
                state.head = 0
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        package let queue: AsyncQueue

        @inlinable package init(queue: AsyncQueue) { self.queue = queue }

        @inlinable package func next() async -> Element? { await queue.next(isolation: nil) }

        @inlinable package func next(isolation actor: isolated (any Actor)?) async -> Element? { await queue.next(isolation: actor) }
    }

    @inlinable package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: self) }
}
