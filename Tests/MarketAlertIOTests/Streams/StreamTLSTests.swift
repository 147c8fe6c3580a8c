import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import NIOSSL
import Testing

/// `wss://`: the stream runs over TLS against a local server whose self-signed certificate (made with
/// openssl for this run) is the client's only extra trust root; an untrusted certificate fails the handshake.
@Suite struct StreamTLSTests {
    struct Certificate {
        var certificatePEM: [UInt8]
        var keyPEM: [UInt8]
    }

    static func makeCertificate() async throws -> Certificate {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("cert.pem").path
        let command = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                       "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        let result = try await CommandRunner.run(command, timeoutSeconds: 60)
        guard result.succeeded else { throw CommandFailed(command: command, result: result) }
        return Certificate(
            certificatePEM: Array(try Data(contentsOf: URL(fileURLWithPath: certificate))),
            keyPEM: Array(try Data(contentsOf: URL(fileURLWithPath: key))))
    }

    func server(_ certificate: Certificate, knobs: StreamPersonaKnobs) async throws -> WebSocketTestServer {
        let chain = try NIOSSLCertificate.fromPEMBytes(certificate.certificatePEM).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(bytes: certificate.keyPEM, format: .pem)
        let tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        return try await WebSocketTestServer(persona: StreamPersonas.of(.binance)(knobs), tls: tls)
    }

    func run(_ server: WebSocketTestServer, trusting certificate: Certificate?) async throws -> (UpdateLog, Task<Void, Never>) {
        var client = TLSConfiguration.makeClientConfiguration()
        if let certificate {
            client.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(certificate.certificatePEM))
        }
        let log = UpdateLog()
        let source = WebSocketStreamSource(
            protocol: BinanceStream(), url: server.url("/ws"), clock: ManualClock(now: Date(timeIntervalSince1970: 1_750_000_000)),
            connector: WebSocketConnector(tlsConfiguration: client), random: { 0.5 })
        let task = Task { await source.run(pairs: [MarketPair(base: "BTC", quote: "USDT")]) { log.append($0) } }
        return (log, task)
    }

    @Test func streamsOverTLS() async throws {
        let certificate = try await Self.makeCertificate()
        let server = try await server(certificate, knobs: StreamPersonaKnobs())
        #expect(server.url("/ws").scheme == "wss")
        let (log, task) = try await run(server, trusting: certificate)
        try await server.waitUntil("a subscription over TLS") { !($0.connections.first?.texts.isEmpty ?? true) }
        try await pollUntil("the stream going live") { log.all.contains(.live) }
        server.push(#"{"u":1,"s":"BTCUSDT","b":"67000.10","B":"1","a":"67000.20","A":"1"}"#)
        try await pollUntil("two stream updates") { log.all.count >= 2 }
        guard case .quotes(let quotes) = log.all.last else {
            Issue.record("expected quotes, got \(log.all)")
            return
        }
        #expect(quotes.first?.bid?.exact == Decimal(string: "67000.10"))
        task.cancel()
        await task.value
        await server.shutdown()
    }

    @Test func anUntrustedCertificateNeverGoesLive() async throws {
        let certificate = try await Self.makeCertificate()
        let server = try await server(certificate, knobs: StreamPersonaKnobs())
        let (log, task) = try await run(server, trusting: nil)
        try await pollUntil("a stream update") { !log.all.isEmpty }
        guard case .down(let reason) = log.all.first else {
            Issue.record("expected down, got \(log.all)")
            return
        }
        #expect(reason.hasPrefix("connect failed: "))
        #expect(server.connections.isEmpty)
        task.cancel()
        await task.value
        await server.shutdown()
    }
}
