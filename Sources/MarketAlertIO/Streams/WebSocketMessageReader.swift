import Foundation
import NIOCore
import NIOWebSocket

/// The last handler of an upgraded WebSocket connection, in place of NIO's frame decoder: parses the
/// server's frames out of each socket read (`WebSocketFrameParser`), reports `.connected`, then passes on
/// every complete message and control frame as it is read, on the event loop — messages to the stream's
/// intake (decoded on the spot), control frames to its driver — no frame values, no async sequence, no
/// task hop in between. A close frame is answered (1000) and the connection closed; a protocol error or an
/// oversized message is answered with 1002 or 1009 and closes it; `closed` is fulfilled once, with why it
/// ended.
///
/// Backpressure is not needed here: the intake decodes each message as it comes (well under a microsecond)
/// and the engine decides its quotes at once (a few microseconds; `EngineCore`), before the next is read.
final class WebSocketMessageReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    private let report: @Sendable (WebSocketLinkEvent) -> Void
    private let message: @Sendable (ByteBuffer, _ compressed: Bool) -> Void
    /// The socket read whose frames were just passed on is done.
    private let readComplete: @Sendable () -> Void
    private let closed: EventLoopPromise<String>
    /// Why the connection is ending, once known (a close frame, an error); reported when it is inactive.
    private var reason: String?
    private var finished = false
    private var parser: WebSocketFrameParser
    /// Control frames (pings, pongs) of the current one-second window: a server that floods them is closed.
    private var controlBudget = ControlFrameBudget()
    /// The stream's clock (the injected `DaemonClock`), read only for control frames.
    private let now: @Sendable () -> Date

    init(
        maxMessageBytes: Int, report: @escaping @Sendable (WebSocketLinkEvent) -> Void,
        message: @escaping @Sendable (ByteBuffer, _ compressed: Bool) -> Void, readComplete: @escaping @Sendable () -> Void,
        closed: EventLoopPromise<String>, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.now = now
        self.parser = WebSocketFrameParser(maxMessageBytes: maxMessageBytes)
        self.report = report
        self.message = message
        self.readComplete = readComplete
        self.closed = closed
    }

    func handlerAdded(context: ChannelHandlerContext) {
        report(.connected)
        if !context.channel.isActive { finish("connection ended without a close frame") }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After a close frame or a protocol error nothing more is read.
        guard reason == nil else { return }
        do {
            try parser.parse(unwrapInboundIn(data)) { output in
                guard reason == nil else { return }
                switch output {
                case .message(let buffer, let compressed):
                    message(buffer, compressed)
                case .ping(let payload):
                    guard admitControlFrame(context) else { return }
                    report(.ping(payload))
                case .pong:
                    guard admitControlFrame(context) else { return }
                    report(.pong)
                case .close(var data):
                    let code = data.readWebSocketErrorCode()
                    let text = data.readString(length: min(data.readableBytes, 120)) ?? ""
                    reason = "closed by the server (\(code.map(WebSocketLink.describe) ?? "no code")\(text.isEmpty ? "" : ": \(text)"))"
                    closeConnection(context, code: 1000)
                }
            }
        } catch {
            reason = "connection failed: WebSocket protocol error (\(error.code)): \(error.reason)"
            closeConnection(context, code: error.code)
        }
    }

    /// Counts a ping or pong; a flood (more than `ControlFrameBudget.limit` in a second) closes the connection
    /// with 1008 (policy violation).
    private func admitControlFrame(_ context: ChannelHandlerContext) -> Bool {
        if controlBudget.admit(at: now()) { return true }
        reason = "connection failed: the server sent more than \(ControlFrameBudget.limit) control frames in a second (a ping flood)"
        closeConnection(context, code: 1008)
        return false
    }

    /// Sends a close frame with `code`, then closes the connection.
    private func closeConnection(_ context: ChannelHandlerContext, code: UInt16) {
        let channel = context.channel
        var data = ByteBuffer()
        data.writeInteger(code)
        let answer = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
        context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        readComplete()
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if reason == nil { reason = "connection failed: \(WebSocketLink.describe(error))" }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        readComplete()
        finish(reason ?? "connection ended without a close frame")
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(reason ?? "connection closed")
    }

    private func finish(_ why: String) {
        guard !finished else { return }
        finished = true
        closed.succeed(why)
    }
}

/// How many control frames a server may send per second. Exchanges ping every 20 s or more and answer one
/// client ping at a time; a server that sends pings or pongs faster than a few a second is flooding (each
/// one costs a wakeup and an answer) and its connection is closed. Pure: the caller passes the time.
struct ControlFrameBudget: Sendable, Equatable {
    static let limit = 5
    private var windowStart = Date.distantPast
    private var count = 0

    /// Counts one control frame at `now`; false once the budget of the window (one second from the first
    /// frame counted in it) is spent.
    mutating func admit(at now: Date) -> Bool {
        if now.timeIntervalSince(windowStart) >= 1 || now < windowStart {
            windowStart = now
            count = 0
        }
        count += 1
        return count <= Self.limit
    }
}
