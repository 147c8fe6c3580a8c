import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// One TCP connection to an SMTP server: sends command lines and raw message bytes, reads replies, and can
/// turn into TLS in place (STARTTLS). Implicit TLS (`smtps://`) starts TLS before the first byte. Certificates
/// are verified against the system's roots, or `caFile`'s, and the host name (or IP address) connected to.
/// Not shared: one session uses it from one task; `close()` may be called from anywhere (cancellation).
package final class SMTPConnection: Sendable {
    private let channel: any Channel
    private let host: String
    private let tls: NIOSSLContext
    /// The iterator lives in a box so `read()` can advance it from a `Sendable` class; only the session's task reads.
    private let iterator: IteratorBox

    private init(channel: any Channel, host: String, tls: NIOSSLContext, replies: AsyncThrowingStream<SMTPReply, any Error>) {
        self.channel = channel
        self.host = host
        self.tls = tls
        self.iterator = IteratorBox(replies.makeAsyncIterator())
    }

    /// Connects to `host:port`, with TLS from the start when `implicitTLS`.
    package static func connect(
        host: String, port: Int, implicitTLS: Bool, caFile: String?, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SMTPConnection {
        let tls = try makeTLSContext(caFile: caFile)
        let (replies, continuation) = AsyncThrowingStream<SMTPReply, any Error>.makeStream()
        let serverName = sniName(host)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHandler(SMTPLineHandler(replies: continuation))
                }
            }
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            return SMTPConnection(channel: channel, host: host, tls: tls, replies: replies)
        } catch {
            continuation.finish()
            throw SMTPFailure.connection(String(describing: error))
        }
    }

    /// The next reply.
    package func read() async throws -> SMTPReply {
        guard let reply = try await iterator.next() else { throw SMTPFailure.connectionClosed }
        return reply
    }

    /// Sends `line` and CRLF.
    package func send(_ line: String) async throws {
        try await write(Array((line + "\r\n").utf8))
    }

    /// Sends bytes as they are (the DATA section, already dot-stuffed and ended).
    package func write(_ bytes: [UInt8]) async throws {
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
        } catch {
            throw SMTPFailure.connection(String(describing: error))
        }
    }

    /// After the server's 220 to STARTTLS: TLS goes first in the pipeline, the handshake runs before the
    /// next line is sent. Data received before the switch would be unprotected: it ends the session.
    package func startTLS() async throws {
        let tls = tls
        let serverName = Self.sniName(host)
        try await channel.eventLoop.submit { [channel] in
            let lines = try channel.pipeline.syncOperations.handler(type: SMTPLineHandler.self)
            guard !lines.hasBufferedInput else { throw SMTPFailure.protocolViolation("data received before the TLS handshake") }
            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName), position: .first)
        }.get()
    }

    package func close() {
        channel.close(promise: nil)
    }

    /// TLS 1.2 or newer; `caFile` (PEM) replaces the system's roots.
    private static func makeTLSContext(caFile: String?) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let caFile { configuration.trustRoots = .file(caFile) }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SMTPFailure.unusable("cannot set up TLS: \(error)")
        }
    }

    /// SNI takes a host name, never an IP address: for an address the certificate is checked against it.
    private static func sniName(_ host: String) -> String? {
        let isIPv4 = host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
        return isIPv4 || host.contains(":") ? nil : host
    }
}

/// The reply stream's iterator, advanced only by the session's one task.
private final class IteratorBox: @unchecked Sendable {
    // Safety: `SMTPSession` awaits each `read()` before the next; no two tasks ever call `next` at once.
    private var iterator: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator

    init(_ iterator: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> SMTPReply? { try await iterator.next() }
}
