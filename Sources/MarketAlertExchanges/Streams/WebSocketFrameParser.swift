import MarketAlertKit
import NIOCore

/// RFC 6455 frames from a server, parsed straight out of the bytes a socket read delivered: a message in
/// one frame (what exchanges send) is handed on as a slice of the read buffer, without a copy, a frame
/// value or a trip through a decoder pipeline; fragmented messages are reassembled; control frames may come
/// between fragments. No extension is ever negotiated, so RSV1 on a message is reported (`compressed`)
/// for the caller to refuse, and RSV2/RSV3 are protocol errors.
///
/// It replaces NIO's `WebSocketFrameDecoder` + `NIOWebSocketFrameAggregator` on the data path
/// (docs/design-history.md says why).
///
/// `package` for the fuzz target (`FuzzStream`), which checks that any split of a byte stream parses as the
/// whole does.
package struct WebSocketFrameParser {
    package enum Output {
        /// A complete text or binary message (its opcode does not matter: the same bytes either way).
        case message(ByteBuffer, compressed: Bool)
        case ping(ByteBuffer)
        case pong
        case close(ByteBuffer)
    }

    /// Why the connection must be closed, with the close code to send.
    package struct Failure: Error, Equatable {
        package let code: UInt16
        package let reason: String

        package static func protocolError(_ reason: String) -> Failure { Failure(code: 1002, reason: reason) }
        package static func tooBig(_ bytes: UInt64, limit: Int) -> Failure {
            Failure(code: 1009, reason: "a message of \(bytes) bytes is over the limit of \(limit)")
        }
    }

    private struct Header {
        var fin: Bool
        var rsv1: Bool
        var opcode: UInt8
        var maskKey: (UInt8, UInt8, UInt8, UInt8)?
        var length: Int
        var headerLength: Int
    }

    package let maxMessageBytes: Int
    /// The start of a frame whose bytes have not all arrived.
    private var pending: ByteBuffer?
    /// A fragmented message being reassembled, and whether its first frame had RSV1.
    private var fragments: ByteBuffer?
    private var fragmentsCompressed = false

    package init(maxMessageBytes: Int) { self.maxMessageBytes = maxMessageBytes }

    /// Parses what `incoming` completes, handing each message or control frame to `deliver` in order.
    package mutating func parse(_ incoming: ByteBuffer, _ deliver: (Output) -> Void) throws(Failure) {
        var work: ByteBuffer
        if var pending {
            self.pending = nil
            pending.writeImmutableBuffer(incoming)
            work = pending
        } else {
            work = incoming
        }
        while let header = try Self.header(of: work, limit: maxMessageBytes) {
            guard work.readableBytes >= header.headerLength + header.length,
                  var payload = work.getSlice(at: work.readerIndex + header.headerLength, length: header.length)
            else { break }
            work.moveReaderIndex(forwardBy: header.headerLength + header.length)
            if let key = header.maskKey { payload = Self.unmask(payload, key) }
            try handle(header, payload, deliver)
        }
        if work.readableBytes > 0 {
            if work.readerIndex > 0 { work.discardReadBytes() }
            pending = work
        }
    }

    private mutating func handle(_ header: Header, _ payload: ByteBuffer, _ deliver: (Output) -> Void) throws(Failure) {
        switch header.opcode {
        case 0x1, 0x2:
            guard fragments == nil else { throw .protocolError("a new message began before the previous one was complete") }
            if header.fin {
                deliver(.message(payload, compressed: header.rsv1))
            } else {
                var message = ByteBufferAllocator().buffer(capacity: payload.readableBytes * 2)
                message.writeImmutableBuffer(payload)
                fragments = message
                fragmentsCompressed = header.rsv1
            }
        case 0x0:
            guard var message = fragments else { throw .protocolError("a continuation frame without a message to continue") }
            guard !header.rsv1 else { throw .protocolError("RSV1 on a continuation frame") }
            let total = message.readableBytes + payload.readableBytes
            guard total <= maxMessageBytes else { throw .tooBig(UInt64(total), limit: maxMessageBytes) }
            fragments = nil  // keeps `message` unique while it grows
            message.writeImmutableBuffer(payload)
            if header.fin {
                deliver(.message(message, compressed: fragmentsCompressed))
            } else {
                fragments = message
            }
        case 0x8, 0x9, 0xA:
            guard header.fin, header.length <= 125, !header.rsv1 else {
                throw .protocolError("a control frame that is fragmented, longer than 125 bytes or has RSV1")
            }
            switch header.opcode {
            case 0x8: deliver(.close(payload))
            case 0x9: deliver(.ping(payload))
            default: deliver(.pong)
            }
        default:
            throw .protocolError("reserved opcode \(header.opcode)")
        }
    }

    /// The header at the start of `buffer`, or nil until all of it has arrived.
    private static func header(of buffer: ByteBuffer, limit: Int) throws(Failure) -> Header? {
        let start = buffer.readerIndex
        guard let first = buffer.getInteger(at: start, as: UInt8.self),
              let second = buffer.getInteger(at: start + 1, as: UInt8.self)
        else { return nil }
        guard first & 0x30 == 0 else { throw .protocolError("RSV2 or RSV3 set without an extension") }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard let extended = buffer.getInteger(at: start + 2, as: UInt16.self) else { return nil }
            length = UInt64(extended)
            headerLength += 2
        } else if length == 127 {
            guard let extended = buffer.getInteger(at: start + 2, as: UInt64.self) else { return nil }
            length = extended
            headerLength += 8
        }
        guard length <= UInt64(limit) else { throw .tooBig(length, limit: limit) }
        var maskKey: (UInt8, UInt8, UInt8, UInt8)?
        if second & 0x80 != 0 {
            guard let key = buffer.getInteger(at: start + headerLength, as: UInt32.self) else { return nil }
            maskKey = (UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF))
            headerLength += 4
        }
        return Header(
            fin: first & 0x80 != 0, rsv1: first & 0x40 != 0, opcode: first & 0x0F, maskKey: maskKey, length: Int(length),
            headerLength: headerLength)
    }

    /// A masked frame (servers should not mask; tolerated, as NIO's decoder does), unmasked into a copy.
    private static func unmask(_ payload: ByteBuffer, _ key: (UInt8, UInt8, UInt8, UInt8)) -> ByteBuffer {
        let keys = [key.0, key.1, key.2, key.3]
        var out = ByteBufferAllocator().buffer(capacity: payload.readableBytes)
        payload.withUnsafeReadableBytes { bytes in
            for (index, byte) in bytes.enumerated() { out.writeInteger(byte ^ keys[index & 3]) }
        }
        return out
    }
}
