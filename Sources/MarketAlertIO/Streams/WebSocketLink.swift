import Foundation
import MarketAlertCore
import NIOCore
import NIOWebSocket

/// What a connection reports to its stream's driver (messages go to the intake instead).
enum WebSocketLinkEvent: Sendable {
    case connected
    /// Before connecting: the keepalive the endpoint asked for (`StreamEndpoint.keepalive`).
    case keepalive(StreamKeepalive)
    case connectFailed(String)
    case ping(ByteBuffer)
    case pong
    case closed(String)
}

/// What the driver asks of a connection.
enum WebSocketLinkCommand: Sendable {
    case text(String)
    case ping
    case pong(ByteBuffer)
    /// Send a close frame (1000) and close.
    case close
}

/// Runs one WebSocket connection: connects, then lets the connection's handler pass on every inbound frame
/// (on the event loop, as read: messages to `message`, the rest to `report`) while this writes the commands
/// it is given, until either side closes.
/// Answers nothing by itself (the driver decides).
struct WebSocketLink: Sendable {
    let url: URL
    let connector: WebSocketConnector
    let connectTimeout: Duration
    /// The stream's clock (a server's control-frame rate is measured on it).
    var now: @Sendable () -> Date = { Date() }
    /// Asked where to connect before each connection (an exchange that hands out endpoints over REST); nil:
    /// `url` itself.
    var endpoint: StreamEndpointResolver? = nil

    func run(
        commands: AsyncStream<WebSocketLinkCommand>, holder: WebSocketChannelHolder,
        report: @escaping @Sendable (WebSocketLinkEvent) -> Void,
        message: @escaping @Sendable (ByteBuffer, _ compressed: Bool) -> Void, readComplete: @escaping @Sendable () -> Void
    ) async {
        let connection: WebSocketConnector.Connection
        do {
            let target = try await endpoint?.resolve(url) ?? StreamEndpoint(url: url)
            if let keepalive = target.keepalive { report(.keepalive(keepalive)) }
            connection = try await connector.connect(
                to: target.url, timeout: connectTimeout, holder: holder, report: report, message: message, readComplete: readComplete,
                now: now)
        } catch {
            holder.close()
            report(.connectFailed(Self.describe(error)))
            return
        }
        // `.connected` and the frames were reported by the connection's handler; this writes until it ends.
        let channel = connection.channel
        let reason = await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await command in commands {
                    let closing = Self.isClose(command)
                    do { try await channel.writeAndFlush(Self.frame(for: command)) } catch { break }
                    if closing { break }
                }
                // The driver is done with this connection (close, or the stream stopped).
                holder.close()
            }
            let reason = (try? await connection.closed.get()) ?? "connection closed"
            group.cancelAll()
            return reason
        }
        holder.close()
        report(.closed(reason))
    }

    private static func isClose(_ command: WebSocketLinkCommand) -> Bool {
        if case .close = command { return true }
        return false
    }

    private static func frame(for command: WebSocketLinkCommand) -> WebSocketFrame {
        switch command {
        case .text(let text):
            return WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        case .ping:
            return WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: ByteBuffer())
        case .pong(let payload):
            return WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: payload)
        case .close:
            return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer(bytes: [0x03, 0xE8]))
        }
    }

    static func describe(_ code: WebSocketErrorCode) -> String {
        "code \(UInt16(webSocketErrorCode: code))"
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? WebSocketConnector.ConnectError { return error.description }
        return String(describing: error)
    }
}
