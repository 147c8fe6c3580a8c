import Foundation
@testable import MarketAlertIO
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization
import Testing

/// The stream connections' own RFC 6455 reader: frames as a server writes them, split and joined in every
/// way a socket can deliver them, and every protocol error an exchange (or a broken proxy) could produce.
@Suite struct WebSocketFrameParserTests {
    /// One frame's bytes, server to client (unmasked unless `mask` is given).
    static func frame(
        _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, mask: [UInt8]? = nil
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | (rsv2 ? 0x20 : 0) | opcode]
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (8 * UInt64($0))) & 0xFF) }
        }
        guard let mask else { return bytes + payload }
        return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    }

    static func text(_ string: String, fin: Bool = true, rsv1: Bool = false) -> [UInt8] { frame(0x1, Array(string.utf8), fin: fin, rsv1: rsv1) }

    /// What the parser hands on, as text, for `chunks` delivered one read each.
    static func parse(_ chunks: [[UInt8]], limit: Int = 1 << 20) -> (outputs: [String], failure: WebSocketFrameParser.Failure?) {
        var parser = WebSocketFrameParser(maxMessageBytes: limit)
        var outputs: [String] = []
        for chunk in chunks {
            do {
                try parser.parse(ByteBuffer(bytes: chunk)) { output in
                    switch output {
                    case .message(let buffer, let compressed): outputs.append("\(compressed ? "z:" : "")\(String(buffer: buffer))")
                    case .ping(let payload): outputs.append("ping:\(String(buffer: payload))")
                    case .pong: outputs.append("pong")
                    case .close(let payload): outputs.append("close:\(payload.readableBytes)")
                    }
                }
            } catch {
                return (outputs, error)
            }
        }
        return (outputs, nil)
    }

    @Test func framesSplitAtEveryByteOrJoinedInOneReadGiveTheSameMessages() {
        let stream = Self.text(#"{"s":"BTCUSDT","b":"1"}"#) + Self.frame(0x2, Array("binary".utf8)) + Self.frame(0x9, Array("hb".utf8))
            + Self.frame(0xA, []) + Self.text(String(repeating: "x", count: 300)) + Self.text(String(repeating: "y", count: 70_000))
        let expected = [#"{"s":"BTCUSDT","b":"1"}"#, "binary", "ping:hb", "pong", String(repeating: "x", count: 300), String(repeating: "y", count: 70_000)]
        #expect(Self.parse([stream]).outputs == expected)
        #expect(Self.parse(stream.map { [$0] }).outputs == expected, "one byte per read")
        for cut in [1, 2, 3, 4, 10, 30, 40, 400] {
            #expect(Self.parse([Array(stream[..<cut]), Array(stream[cut...])]).outputs == expected, "split at \(cut)")
        }
    }

    @Test func aFragmentedMessageIsReassembledAroundAControlFrame() {
        let result = Self.parse([
            Self.text(#"{"a":"#, fin: false, rsv1: true) + Self.frame(0x9, Array("p".utf8)),
            Self.frame(0x0, Array("1,".utf8), fin: false),
            Self.frame(0x0, Array(#""b":2}"#.utf8)) + Self.text("next"),
        ])
        #expect(result.failure == nil)
        #expect(result.outputs == ["ping:p", #"z:{"a":1,"b":2}"#, "next"])
    }

    @Test func aMaskedFrameIsUnmasked() {
        #expect(Self.parse([Self.frame(0x1, Array("hello".utf8), mask: [0x37, 0xFA, 0x21, 0x3D])]).outputs == ["hello"])
    }

    @Test func protocolErrorsCloseWith1002AndOversizedMessagesWith1009() {
        let cases: [(String, [[UInt8]], UInt16)] = [
            ("reserved opcode", [Self.frame(0x3, [])], 1002),
            ("RSV2", [Self.frame(0x1, Array("x".utf8), rsv2: true)], 1002),
            ("control frame over 125 bytes", [Self.frame(0x9, Array(repeating: 0x61, count: 126))], 1002),
            ("fragmented ping", [Self.frame(0x9, [], fin: false)], 1002),
            ("continuation without a message", [Self.frame(0x0, Array("x".utf8))], 1002),
            ("a message inside a message", [Self.text("a", fin: false) + Self.text("b")], 1002),
            ("a frame over the limit, refused from its header", [Array(Self.frame(0x1, Array(repeating: 0x61, count: 2000)).prefix(4))], 1009),
            ("fragments adding up over the limit", [Self.text(String(repeating: "a", count: 600), fin: false) + Self.frame(0x0, Array(repeating: 0x61, count: 600))], 1009),
        ]
        for (name, chunks, code) in cases {
            let result = Self.parse(chunks, limit: 1000)
            #expect(result.failure?.code == code, "\(name): \(String(describing: result.failure))")
            #expect(result.outputs.isEmpty, "\(name): nothing handed on")
        }
    }

    /// The handler on a real (embedded) NIO pipeline: messages reach the intake, a server's close frame is
    /// answered with 1000, a protocol error with 1002, and `closed` says why.
    @Test func theReaderAnswersCloseFramesAndProtocolErrors() throws {
        for (input, answer, reason) in [
            (Self.text("hi") + Self.frame(0x8, [0x03, 0xE8] + Array("bye".utf8)), UInt16(1000), "closed by the server (code 1000: bye)"),
            (Self.text("hi") + Self.frame(0x3, []), UInt16(1002), "WebSocket protocol error (1002): reserved opcode 3"),
        ] {
            let channel = EmbeddedChannel()
            let messages = Mutex<[String]>([])
            let closed = channel.eventLoop.makePromise(of: String.self)
            // Connected first: the reader is added to an upgraded, open connection.
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
            try channel.pipeline.syncOperations.addHandler(WebSocketMessageReader(
                maxMessageBytes: 1 << 20, report: { _ in }, message: { buffer, _ in messages.withLock { $0.append(String(buffer: buffer)) } },
                readComplete: {}, closed: closed))
            try channel.writeInbound(ByteBuffer(bytes: input))
            #expect(messages.withLock { $0 } == ["hi"])
            // The encoder writes the header and the (masked) payload as separate buffers.
            var bytes: [UInt8] = []
            while let written = try channel.readOutbound(as: ByteBuffer.self) { bytes += Array(written.readableBytesView) }
            // A masked client close frame: FIN + close opcode, masked length 2, then the masked code.
            #expect(bytes.first == 0x88)
            #expect(bytes.count == 8)
            let code = (UInt16(bytes[6] ^ bytes[2]) << 8) | UInt16(bytes[7] ^ bytes[3])
            #expect(code == answer)
            channel.embeddedEventLoop.run()
            let why = try closed.futureResult.wait()
            #expect(why.contains(reason), "\(why)")
            _ = try? channel.finish()
        }
    }
}
