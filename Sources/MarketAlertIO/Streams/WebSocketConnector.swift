import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// Opens WebSocket client connections with SwiftNIO's own upgrader (`ws://` and `wss://`).
///
/// Thin on purpose: the upgrade request carries `Host` and `User-Agent` and nothing else — no `Origin`
/// (Upbit limits requests that carry one to 1 per 10 s) and no `Sec-WebSocket-Extensions`, so
/// permessage-deflate is never negotiated. Control frames are not answered here: pings, pongs and close
/// frames reach the stream runner, which answers pings under the exchange's message-rate limit and counts
/// every frame for its liveness checks. Inbound frames are reported as they are read, on the channel's
/// event loop (`WebSocketMessageReader`), with no async sequence or task between socket and driver.
package struct WebSocketConnector: Sendable {
    /// An upgraded connection: write frames to `channel`; `closed` says why it ended once it has.
    package struct Connection: Sendable {
        let channel: any NIOCore.Channel
        let closed: EventLoopFuture<String>
    }

    let group: any EventLoopGroup
    /// Largest message accepted (after reassembling fragments); a larger one closes the connection (1009),
    /// refused from its frame header before any of it is buffered. The default is what the intake decodes
    /// (`StreamIntake.decodeLimit`): a larger message could only be dropped after being read in full, and a
    /// server sending such messages endlessly kept a stream "live" at a full core.
    let maxMessageBytes: Int
    /// The TLS context for `wss://` (nil: the shared one with the system trust roots).
    private let tls: Result<NIOSSLContext, any Error>?

    /// `tlsConfiguration`: a client TLS setup other than the default (system trust roots, full verification),
    /// e.g. an extra trusted root. `group`: by default the data path's event loop, which also runs the
    /// stream tasks (`DataPathExecutor`), so a frame reaches its decoder without changing threads.
    package init(
        group: any EventLoopGroup = DataPathExecutor.shared.loop, maxMessageBytes: Int = StreamIntake.decodeLimit,
        tlsConfiguration: TLSConfiguration? = nil
    ) {
        self.group = group
        self.maxMessageBytes = maxMessageBytes
        tls = tlsConfiguration.map { configuration in Result { try NIOSSLContext(configuration: configuration) } }
    }

    package struct ConnectError: Error, CustomStringConvertible {
        package var description: String
    }

    private enum UpgradeResult: Sendable {
        case websocket(Connection)
        case notUpgraded
    }

    /// Connects and upgrades. `holder` receives the raw channel as soon as it exists, so the caller can
    /// abort a hanging handshake by closing it. Once upgraded, `report` hears `.connected` and then every
    /// control frame, `message` every text or binary message, on the event loop as read, and `readComplete`
    /// the end of each socket read; not `.closed` (the connection's `closed` future says why).
    func connect(
        to url: URL, timeout: Duration, holder: WebSocketChannelHolder, report: @escaping @Sendable (WebSocketLinkEvent) -> Void,
        message: @escaping @Sendable (ByteBuffer, _ compressed: Bool) -> Void, readComplete: @escaping @Sendable () -> Void,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> Connection {
        guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss", let host = url.host, !host.isEmpty else {
            throw ConnectError(description: "not a ws:// or wss:// URL: \(url.absoluteString)")
        }
        let secure = scheme == "wss"
        let port = url.port ?? (secure ? 443 : 80)
        let hostHeader = url.port.map { "\(host):\($0)" } ?? host
        // The path as written: `url.path` drops a trailing slash (Gate's endpoint is `/ws/v4/`).
        let path = url.path(percentEncoded: true)
        var target = path.isEmpty ? "/" : path
        if let query = url.query { target += "?" + query }
        let tls = secure ? try (self.tls ?? Self.clientTLS).get() : nil
        // SNI carries host names only; an IP literal (a local test server) goes without.
        let isIPLiteral = host.contains(":") || host.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
        let serverName = isIPLiteral ? nil : host
        let maxBytes = maxMessageBytes
        let requestTarget = target

        let upgrade: EventLoopFuture<UpgradeResult> = try await ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(Int64(timeout.seconds * 1e9)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                holder.attach(channel)
                return channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    // NIO's upgrader checks the handshake and adds its frame encoder and decoder; the decoder is
                    // swapped for our reader (`WebSocketMessageReader`) before any frame can arrive (the upgrade
                    // handler holds bytes read after the 101 until this future completes).
                    let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeResult>(
                        maxFrameSize: maxBytes, enableAutomaticErrorHandling: false
                    ) { channel, _ in
                        let decoder: ByteToMessageHandler<WebSocketFrameDecoder>
                        do {
                            decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                        } catch {
                            return channel.eventLoop.makeFailedFuture(error)
                        }
                        return channel.pipeline.syncOperations.removeHandler(decoder).flatMapThrowing {
                            let closed = channel.eventLoop.makePromise(of: String.self)
                            do {
                                try channel.pipeline.syncOperations.addHandler(WebSocketMessageReader(
                                    maxMessageBytes: maxBytes, report: report, message: message, readComplete: readComplete, closed: closed,
                                    now: now))
                            } catch {
                                // The channel closed during the upgrade: the reader never came to own the promise.
                                closed.fail(error)
                                throw error
                            }
                            return .websocket(Connection(channel: channel, closed: closed.futureResult))
                        }
                    }
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: hostHeader)
                    headers.add(name: "User-Agent", value: "marketalertd")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: requestTarget, headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<UpgradeResult>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(.notUpgraded) })
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        switch try await upgrade.get() {
        case .websocket(let connection):
            return connection
        case .notUpgraded:
            holder.close()
            throw ConnectError(description: "the server refused the WebSocket upgrade (an HTTP answer other than 101)")
        }
    }

    /// One client TLS context for every connection (system trust roots), made on first use.
    private static let clientTLS: Result<NIOSSLContext, any Error> = Result {
        try NIOSSLContext(configuration: .makeClientConfiguration())
    }
}

/// The raw channel of a connection being opened, so that it can be closed from outside (a handshake that
/// hangs, a connection given up on). Closing before the channel exists closes it as soon as it does.
package final class WebSocketChannelHolder: Sendable {
    private struct State {
        var channel: (any NIOCore.Channel)?
        var closed = false
    }

    private let state = Mutex(State())

    package init() {}

    func attach(_ channel: any NIOCore.Channel) {
        let closeNow = state.withLock { state -> Bool in
            state.channel = channel
            return state.closed
        }
        if closeNow { channel.close(promise: nil) }
    }

    package func close() {
        let channel = state.withLock { state -> (any NIOCore.Channel)? in
            state.closed = true
            return state.channel
        }
        channel?.close(promise: nil)
    }
}
