import Dispatch
import Synchronization

/// Runs blocking work (reading a config file that may be a FIFO, parsing a large YAML) on a Dispatch thread,
/// off the cooperative pool. Cancellation returns at once with `CancellationError`; the work itself is left
/// to finish on its thread and its result is dropped, so a stuck read can never hold up a shutdown.
package enum BlockingWork {
    package static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        let box = ResumeOnce<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                box.set(continuation)
                DispatchQueue.global().async { box.resume(.success(work())) }
            }
        } onCancel: {
            box.resume(.failure(CancellationError()))
        }
    }
}

/// A continuation resumed exactly once, by whichever of the work and the cancellation comes first.
private final class ResumeOnce<T: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<T, any Error>)
        case early(Result<T, any Error>)
        case done
    }

    private let state = Mutex<State>(.idle)

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock { state in
            switch state {
            case .idle:
                state = .waiting(continuation)
                return nil
            case .early(let result):
                state = .done
                return result
            case .waiting, .done:
                return nil
            }
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(_ result: Result<T, any Error>) {
        let continuation: CheckedContinuation<T, any Error>? = state.withLock { state in
            switch state {
            case .idle:
                state = .early(result)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .early, .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
