import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// A real WebSocket server on 127.0.0.1 (SwiftNIO's upgrader; frames cross a socket) that a test drives:
/// a `persona` answers each client text message the way an exchange would (acks, errors, pongs); the
/// test pushes recorded frames, pings the client, closes connections abruptly or cleanly, or simply stops
/// pushing while still answering (silent but alive). Everything the client sends is recorded per connection.
package final class WebSocketTestServer: Sendable {
    package enum Received: Sendable, Equatable {
        case text(String)
        case binary(Data)
        case ping(Data)
        case pong(Data)
        case close(UInt16?)
    }

    package enum Reply: Sendable, Equatable {
        case text(String)
        case binary(Data)
    }

    /// Answers one client text message (already received on `connection`).
    package typealias Persona = @Sendable (_ text: String, _ connection: Int) -> [Reply]

    package struct ConnectionInfo: Sendable {
        package var id: Int
        package var uri: String
        package var headers: [(String, String)]
        package var received: [Received]
        package var isOpen: Bool

        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        package var texts: [String] {
            received.compactMap { if case .text(let text) = $0 { return text } else { return nil } }
        }
    }

    private struct Connection {
        var info: ConnectionInfo
        var channel: (any Channel)?
    }

    private struct State {
        var connections: [Connection] = []
        var persona: Persona
        var answerPings = true
    }

    private let state: Mutex<State>
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    package let port: Int
    private let scheme: String

    /// `tls`: serve `wss://` with this server configuration (certificate and key).
    package init(persona: @escaping Persona = { _, _ in [] }, tls: TLSConfiguration? = nil) async throws {
        let state = Mutex(State(persona: persona))
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        self.scheme = tls == nil ? "ws" : "wss"
        let box = ServerBox()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: 1 << 22, automaticErrorHandling: true,
                    shouldUpgrade: { channel, head in
                        box.server.withLock { $0.server }?.accept(channel, head: head)
                        return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
                    },
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(ServerFrameHandler(box: box))
                        }
                    })
                if let sslContext {
                    do {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    } catch {
                        return channel.eventLoop.makeFailedFuture(error)
                    }
                }
                return channel.pipeline.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
            .bind(host: "127.0.0.1", port: 0).get()
        self.state = state
        self.group = group
        self.listener = listener
        self.port = listener.localAddress?.port ?? 0
        box.server.withLock { $0 = WeakWebSocketServer(server: self) }
    }

    package func url(_ path: String = "/ws") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!  // a literal host and a bound port
    }

    package func setPersona(_ persona: @escaping Persona) { state.withLock { $0.persona = persona } }

    /// Whether client pings get a pong (true by default; false: a dead-but-open server).
    package func setAnswerPings(_ answer: Bool) { state.withLock { $0.answerPings = answer } }

    package var connections: [ConnectionInfo] { state.withLock { $0.connections.map(\.info) } }
    package var openConnections: [ConnectionInfo] { connections.filter(\.isOpen) }

    /// The newest open connection's id.
    package var latest: Int? { openConnections.last?.id }

    // MARK: Driving the client

    /// Sends a text frame on connection `id` (default: the newest open one).
    package func push(_ text: String, to id: Int? = nil) {
        send(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text)), to: id)
    }

    /// Sends text frames back to back and flushes once: they leave in one TCP segment (a burst the client
    /// reads at once, while they fit its read buffer).
    package func pushTogether(_ texts: [String], to id: Int? = nil) {
        guard let channel = channel(id) else { return }
        channel.eventLoop.execute {
            for text in texts { channel.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text)), promise: nil) }
            channel.flush()
        }
    }

    package func push(binary: Data, to id: Int? = nil) {
        send(WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: binary)), to: id)
    }

    /// Sends a WebSocket ping carrying `payload`.
    package func ping(_ payload: Data, to id: Int? = nil) {
        send(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(bytes: payload)), to: id)
    }

    /// Drops the TCP connection without a close frame.
    package func closeAbruptly(_ id: Int? = nil) {
        channel(id)?.close(promise: nil)
    }

    /// Sends a close frame with `code`, then closes.
    package func closeCleanly(_ id: Int? = nil, code: UInt16 = 1000) {
        guard let channel = channel(id) else { return }
        var data = ByteBuffer()
        data.writeInteger(code)
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// Waits (real time, polling) until `condition` holds; throws after `timeout`. Synchronisation with the
    /// socket, never a timing assertion.
    package func waitUntil(
        _ what: String, timeout: Duration = .seconds(10), _ condition: @Sendable (WebSocketTestServer) -> Bool
    ) async throws {
        try await pollUntil(what, timeout: timeout) { condition(self) }
    }

    package struct WaitTimeout: Error, CustomStringConvertible {
        package var what: String
        package init(what: String) { self.what = what }
        package var description: String { "timed out waiting for \(what)" }
    }

    package func shutdown() async {
        for channel in state.withLock({ $0.connections.compactMap(\.channel) }) { try? await channel.close() }
        try? await listener.close()
        try? await group.shutdownGracefully()
    }

    // MARK: Server side

    private func channel(_ id: Int?) -> (any Channel)? {
        state.withLock { state in
            let target = id ?? state.connections.last(where: \.info.isOpen)?.info.id
            return state.connections.first { $0.info.id == target && $0.info.isOpen }?.channel
        }
    }

    private func send(_ frame: WebSocketFrame, to id: Int?) {
        channel(id)?.writeAndFlush(frame, promise: nil)
    }

    fileprivate func accept(_ channel: any Channel, head: HTTPRequestHead) {
        state.withLock { state in
            let info = ConnectionInfo(
                id: state.connections.count + 1, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                received: [], isOpen: true)
            state.connections.append(Connection(info: info, channel: channel))
        }
    }

    /// Records a client frame; returns the frames to send back.
    fileprivate func received(_ frame: Received, on channel: any Channel) -> [WebSocketFrame] {
        let (id, persona, answerPings) = state.withLock { state -> (Int?, Persona, Bool) in
            guard let index = state.connections.firstIndex(where: { $0.channel === channel }) else { return (nil, state.persona, false) }
            state.connections[index].info.received.append(frame)
            return (state.connections[index].info.id, state.persona, state.answerPings)
        }
        guard let id else { return [] }
        switch frame {
        case .text(let text):
            return persona(text, id).map { reply in
                switch reply {
                case .text(let text): WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
                case .binary(let data): WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: data))
                }
            }
        case .ping(let payload):
            return answerPings ? [WebSocketFrame(fin: true, opcode: .pong, data: ByteBuffer(bytes: payload))] : []
        default:
            return []
        }
    }

    fileprivate func closed(_ channel: any Channel) {
        state.withLock { state in
            if let index = state.connections.firstIndex(where: { $0.channel === channel }) {
                state.connections[index].info.isOpen = false
            }
        }
    }
}

private struct WeakWebSocketServer: Sendable {
    weak var server: WebSocketTestServer?
}

private final class ServerBox: Sendable {
    let server = Mutex(WeakWebSocketServer(server: nil))
}

private final class ServerFrameHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let box: ServerBox

    init(box: ServerBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard let server = box.server.withLock({ $0.server }) else { return }
        var payload = frame.unmaskedData
        let received: WebSocketTestServer.Received
        switch frame.opcode {
        case .text: received = .text(payload.readString(length: payload.readableBytes) ?? "")
        case .binary: received = .binary(Data(payload.readableBytesView))
        case .ping: received = .ping(Data(payload.readableBytesView))
        case .pong: received = .pong(Data(payload.readableBytesView))
        case .connectionClose:
            received = .close(payload.readInteger(as: UInt16.self))
        default: return
        }
        let replies = server.received(received, on: context.channel)
        for reply in replies { context.write(wrapOutboundOut(reply), promise: nil) }
        if case .close = received {
            var data = ByteBuffer()
            data.writeInteger(UInt16(1000))
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))).whenComplete { _ in
                channel.close(promise: nil)
            }
            return
        }
        if !replies.isEmpty { context.flush() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        box.server.withLock { $0.server }?.closed(context.channel)
        context.fireChannelInactive()
    }
}
