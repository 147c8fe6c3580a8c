import Synchronization

/// A value delivered once to one waiter, whichever comes first: `fire` before `wait` makes `wait` return at
/// once, so a wake-up can never be lost between registering a waiter and being woken (the race that let a
/// test wait forever). Later `fire`s are ignored.
package final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Value?, Never>)
        /// nil: the deadline came first.
        case fired(Value?)
        case consumed
    }

    private let state = Mutex<State>(.idle)

    package init() {}

    /// Delivers `value` unless something was delivered already; true when this call delivered it.
    @discardableResult
    package func fire(_ value: Value) -> Bool { deliver(value) }

    /// Waits for `fire`, at most `timeout` of real time; nil when the timeout came first. One waiter only.
    package func wait(timeout: Duration) async -> Value? {
        await withTaskGroup(of: Void.self) { group -> Value? in
            group.addTask { [self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                deliver(nil)
            }
            let value = await waitForDelivery()
            group.cancelAll()
            return value
        }
    }

    private func waitForDelivery() async -> Value? {
        await withCheckedContinuation { continuation in
            let early = state.withLock { state -> Value?? in
                switch state {
                case .idle:
                    state = .waiting(continuation)
                    return .none
                case .fired(let value):
                    state = .consumed
                    return .some(value)
                case .waiting, .consumed:
                    preconditionFailure("OneShot waited on twice")
                }
            }
            if case .some(let value) = early { continuation.resume(returning: value) }
        }
    }

    @discardableResult
    private func deliver(_ value: Value?) -> Bool {
        let (delivered, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Value?, Never>?) in
            switch state {
            case .idle:
                state = .fired(value)
                return (true, nil)
            case .waiting(let continuation):
                state = .consumed
                return (true, continuation)
            case .fired, .consumed:
                return (false, nil)
            }
        }
        waiter?.resume(returning: value)
        return delivered
    }
}
