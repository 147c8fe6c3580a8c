import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization

/// Collects one answer (head and body, up to a cap) for `AsyncHTTPFetcher`, on the request's event loop.
///
/// async-http-client's callback API rather than its `async` one: each `execute(_:timeout:)` of the latter
/// starts an unstructured `Task` (its cancel handler's registration), which runs on Swift's global executor,
/// so every poll woke one of its threads and handed work back (strace: a `futex` wake per request, about
/// fifteen a second polling 8 exchanges). Here the answer is gathered by callbacks on the loop and the poller
/// resumes on its own executor, the same loop.
///
/// The body's buffer is sized from `Content-Length` when the server sends one (at most the cap), so a ticker
/// list of half a megabyte is written once instead of being copied at each doubling of its buffer.
final class ResponseBodyCollector: HTTPClientResponseDelegate {
    typealias Response = Answer

    struct Answer: Sendable {
        var head: HTTPResponseHead
        var body: ByteBuffer
    }

    /// The body is over the cap (announced by `Content-Length`, or as it arrives).
    struct TooLarge: Error, CustomStringConvertible {
        var limit: Int
        var description: String { "response body larger than \(limit) bytes" }
    }

    /// The request ended without a response head (async-http-client reports such an end as an error first).
    struct NoHead: Error {}

    private struct State {
        var head: HTTPResponseHead?
        var body: ByteBuffer?
    }

    private let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    func didReceiveHead(task: HTTPClient.Task<Answer>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let announced = head.headers.first(name: "Content-Length").flatMap { Int($0) }
        if let announced, announced > limit { return task.eventLoop.makeFailedFuture(TooLarge(limit: limit)) }
        state.withLock { state in
            state.head = head
            if let announced, announced > 0 { state.body = ByteBufferAllocator().buffer(capacity: announced) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Answer>, _ part: ByteBuffer) -> EventLoopFuture<Void> {
        let fits = state.withLock { state -> Bool in
            guard (state.body?.readableBytes ?? 0) + part.readableBytes <= limit else { return false }
            if state.body == nil {
                state.body = part  // the first part as it came: no copy when it is the whole body
            } else {
                var part = part
                state.body?.writeBuffer(&part)
            }
            return true
        }
        return fits ? task.eventLoop.makeSucceededVoidFuture() : task.eventLoop.makeFailedFuture(TooLarge(limit: limit))
    }

    func didReceiveError(task: HTTPClient.Task<Answer>, _ error: any Error) {}

    func didFinishRequest(task: HTTPClient.Task<Answer>) throws -> Answer {
        try state.withLock { state in
            guard let head = state.head else { throw NoHead() }
            return Answer(head: head, body: state.body ?? ByteBuffer())
        }
    }
}
