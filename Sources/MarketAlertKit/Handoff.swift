import Synchronization

/// One value handed from the task that makes it to the task that waits for it, where the waiter may give up:
/// `take()` throws `CancellationError` when the waiting task is cancelled, and the maker's later `deliver`
/// is then dropped. `deliver` before `take` makes `take` return at once (no lost wake-up). One waiter.
package final class Handoff<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, any Error>)
        case delivered(Value)
        case done
    }

    private let state = Mutex<State>(.empty)

    package init() {}

    /// Hands `value` to the waiter (now or when it comes); ignored once the waiter has given up or taken one.
    package func deliver(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .empty:
                state = .delivered(value)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .delivered, .done:
                return nil
            }
        }
        waiter?.resume(returning: value)
    }

    /// Whether a task is waiting in `take()` now (tests wait for it instead of sleeping).
    package var isAwaited: Bool {
        state.withLock { if case .waiting = $0 { true } else { false } }
    }

    /// The value, once delivered; `CancellationError` when the calling task is cancelled first.
    package func take() async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let early = state.withLock { state -> Result<Value, any Error>? in
                    switch state {
                    case .delivered(let value):
                        state = .done
                        return .success(value)
                    case .done:
                        return .failure(CancellationError())
                    case .empty:
                        if Task.isCancelled {
                            state = .done
                            return .failure(CancellationError())
                        }
                        state = .waiting(continuation)
                        return nil
                    case .waiting:
                        return .failure(CancellationError())  // a second waiter: not supported
                    }
                }
                if let early { continuation.resume(with: early) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                guard case .waiting(let continuation) = state else {
                    if case .empty = state { state = .done }
                    return nil
                }
                state = .done
                return continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
