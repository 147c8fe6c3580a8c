import NIOCore

/// The inbound end of an SMTP connection: splits bytes into CRLF lines (a bare LF is accepted too), parses
/// them into replies (`SMTPReplyParser`) and yields each reply to the session's stream. A line longer than
/// `maxLineLength`, a malformed reply or the connection closing ends the stream with an error.
final class SMTPLineHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// RFC 5321 allows 512 octets per reply line; servers' text is sometimes longer.
    static let maxLineLength = 4096

    private let replies: AsyncThrowingStream<SMTPReply, any Error>.Continuation
    private var pending: [UInt8] = []
    private var parser = SMTPReplyParser()

    init(replies: AsyncThrowingStream<SMTPReply, any Error>.Continuation) {
        self.replies = replies
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        for byte in buffer.readableBytesView {
            guard byte == UInt8(ascii: "\n") else {
                pending.append(byte)
                if pending.count > Self.maxLineLength {
                    fail(SMTPFailure.protocolViolation("a reply line longer than \(Self.maxLineLength) bytes"), context: context)
                    return
                }
                continue
            }
            if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
            let line = String(decoding: pending, as: UTF8.self)
            pending.removeAll(keepingCapacity: true)
            do {
                if let reply = try parser.feed(line) { replies.yield(reply) }
            } catch {
                fail(SMTPFailure.protocolViolation(error.description), context: context)
                return
            }
        }
    }

    /// Bytes received after the last complete reply (STARTTLS must start on a clean boundary).
    var hasBufferedInput: Bool { !pending.isEmpty || parser.isMidReply }

    func channelInactive(context: ChannelHandlerContext) {
        replies.finish(throwing: SMTPFailure.connectionClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(SMTPFailure.connection(String(describing: error)), context: context)
    }

    private func fail(_ failure: SMTPFailure, context: ChannelHandlerContext) {
        replies.finish(throwing: failure)
        context.close(promise: nil)
    }
}
