import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 for tests: routes answer with recorded payloads that the test can
/// change between polls, and every request is logged. Not a stub of the client: bytes cross a socket.
package final class MockHTTPServer: Sendable {
    package struct Request: Sendable {
        package var method: String
        /// Path without the query, e.g. `/api/v3/ticker/24hr`.
        package var path: String
        package var query: String?
        package var headers: [(String, String)]
        package var body: Data

        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    package struct Response: Sendable {
        package var status: Int
        package var headers: [(String, String)]
        package var body: Data
        /// Wait this long before answering (a slow or hanging server).
        package var delay: Duration
        /// When not zero, the head is sent at once and then the body one byte at a time, this long apart
        /// (a server that drips its answer).
        package var drip: Duration
        /// Sent without `Content-Length`, in chunks of at most this many bytes (`Transfer-Encoding: chunked`).
        package var chunks: Int?

        package init(
            status: Int = 200, headers: [(String, String)] = [("Content-Type", "application/json")], body: Data, delay: Duration = .zero,
            drip: Duration = .zero
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.drip = drip
        }

        /// `body` sent in chunks of at most `size` bytes, its length not announced.
        package static func chunked(_ body: Data, size: Int, status: Int = 200) -> Response {
            var response = Response(status: status, body: body)
            response.chunks = max(1, size)
            return response
        }

        package static func json(_ text: String, status: Int = 200) -> Response {
            Response(status: status, body: Data(text.utf8))
        }

        package static func data(_ data: Data, status: Int = 200) -> Response { Response(status: status, body: data) }
    }

    package typealias Handler = @Sendable (Request) -> Response

    private struct State {
        var routes: [String: Handler] = [:]
        var fallback: Handler?
        var requests: [Request] = []
    }

    private let state = Mutex(State())
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    package let port: Int

    /// Starts listening on 127.0.0.1 on a free port.
    package init() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        let box = HandlerBox()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(MockHTTPHandler(box: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
        box.server.withLock { $0 = WeakServer(server: self) }
    }

    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }  // a literal host and a bound port

    /// Answers GET/POST on `path` (query ignored) with `handler`'s response.
    package func route(_ path: String, _ handler: @escaping Handler) {
        state.withLock { $0.routes[path] = handler }
    }

    package func route(_ path: String, response: Response) {
        route(path) { _ in response }
    }

    /// Answers every path without a route (nil from `handler`: 404).
    package func fallback(_ handler: @escaping @Sendable (Request) -> Response?) {
        state.withLock { $0.fallback = { handler($0) ?? MockHTTPServer.notFound } }
    }

    private static let notFound = Response(status: 404, headers: [("Content-Type", "text/html")], body: Data("<html>not found</html>".utf8))

    package var requests: [Request] { state.withLock { $0.requests } }

    package func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    package func clearRequests() { state.withLock { $0.requests.removeAll() } }

    fileprivate func handle(_ request: Request) -> Response {
        let handler = state.withLock { state -> Handler? in
            state.requests.append(request)
            return state.routes[request.path] ?? state.fallback
        }
        return handler?(request) ?? Self.notFound
    }

    package func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

private struct WeakServer: Sendable {
    weak var server: MockHTTPServer?
}

private final class HandlerBox: Sendable {
    let server = Mutex(WeakServer(server: nil))
}

private final class MockHTTPHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: NIO confines a handler to its channel's event loop; `head` and `body` are only touched there.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let box: HandlerBox
    private var head: HTTPRequestHead?
    private var body = Data()

    init(box: HandlerBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = Data()
        case .body(let buffer):
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return }
            let parts = head.uri.split(separator: "?", maxSplits: 1)
            let request = MockHTTPServer.Request(
                method: head.method.rawValue, path: String(parts.first ?? ""), query: parts.count > 1 ? String(parts[1]) : nil,
                headers: head.headers.map { ($0.name, $0.value) }, body: body)
            let response = box.server.withLock { $0.server }?.handle(request)
                ?? MockHTTPServer.Response(status: 503, body: Data())
            let keepAlive = head.isKeepAlive
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let write: @Sendable () -> Void = {
                let (handler, context) = loopBound.value
                handler.write(response, keepAlive: keepAlive, version: head.version, context: context)
            }
            if response.delay > .zero {
                context.eventLoop.scheduleTask(in: Self.timeAmount(response.delay)) { write() }
            } else {
                write()
            }
            self.head = nil
        }
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(Int64(duration.components.seconds) * 1_000_000_000 + Int64(duration.components.attoseconds / 1_000_000_000))
    }

    private func write(_ response: MockHTTPServer.Response, keepAlive: Bool, version: HTTPVersion, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders(response.headers)
        if response.chunks == nil {
            headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        } else {
            headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        }
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        if let size = response.chunks {
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            var rest = response.body[...]
            while !rest.isEmpty {
                let part = rest.prefix(size)
                rest = rest.dropFirst(part.count)
                var buffer = context.channel.allocator.buffer(capacity: part.count)
                buffer.writeBytes(part)
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            }
            end(keepAlive: keepAlive, context: context)
            return
        }
        if response.drip > .zero {
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            drip(response.body[...], every: Self.timeAmount(response.drip), keepAlive: keepAlive, context: context)
            return
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: response.body.count)
        buffer.writeBytes(response.body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        end(keepAlive: keepAlive, context: context)
    }

    /// Sends the first byte of `rest` now and the others `interval` apart, then ends the response; stops when
    /// the client closed the connection.
    private func drip(_ rest: Data.SubSequence, every interval: TimeAmount, keepAlive: Bool, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        guard let byte = rest.first else {
            end(keepAlive: keepAlive, context: context)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: 1)
        buffer.writeInteger(byte)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let remaining = Data(rest.dropFirst())
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: interval) {
            let (handler, context) = loopBound.value
            handler.drip(remaining[...], every: interval, keepAlive: keepAlive, context: context)
        }
    }

    private func end(keepAlive: Bool, context: ChannelHandlerContext) {
        let promise: EventLoopPromise<Void>? = keepAlive ? nil : context.eventLoop.makePromise()
        let channel = context.channel
        promise?.futureResult.whenComplete { _ in channel.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }
}
