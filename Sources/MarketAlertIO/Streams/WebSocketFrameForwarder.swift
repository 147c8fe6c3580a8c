import NIOCore
import NIOWebSocket

/// The last handler of an upgraded WebSocket connection: reports `.connected`, then passes on every complete
/// frame as it is read, on the event loop — messages to the stream's intake (decoded on the spot), control
/// frames to its driver — no async sequence, no task hop in between. A close
/// frame is answered (1000) and the connection closed; `closed` is fulfilled once, with why it ended.
///
/// Backpressure is not needed here: the intake decodes each message as it comes (well under a microsecond)
/// and the engine decides its quotes at once (a few microseconds; `EngineCore`), before the next is read.
final class WebSocketFrameForwarder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let report: @Sendable (WebSocketLinkEvent) -> Void
    private let message: @Sendable (ByteBuffer, _ compressed: Bool) -> Void
    /// The socket read whose frames were just passed on is done.
    private let readComplete: @Sendable () -> Void
    private let closed: EventLoopPromise<String>
    /// Why the connection is ending, once known (a close frame, an error); reported when it is inactive.
    private var reason: String?
    private var finished = false

    init(
        report: @escaping @Sendable (WebSocketLinkEvent) -> Void, message: @escaping @Sendable (ByteBuffer, _ compressed: Bool) -> Void,
        readComplete: @escaping @Sendable () -> Void, closed: EventLoopPromise<String>
    ) {
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
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            message(frame.unmaskedData, frame.rsv1)
        case .ping:
            report(.ping(frame.unmaskedData))
        case .pong:
            report(.pong)
        case .connectionClose:
            guard reason == nil else { return }
            var data = frame.unmaskedData
            let code = data.readWebSocketErrorCode()
            let text = data.readString(length: min(data.readableBytes, 120)) ?? ""
            reason = "closed by the server (\(code.map(WebSocketLink.describe) ?? "no code")\(text.isEmpty ? "" : ": \(text)"))"
            let channel = context.channel
            let answer = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer(bytes: [0x03, 0xE8]))
            context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
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
