import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// OKX's and Bybit's signed status reads over real HTTP in virtual time: a local server that answers only a
/// request whose signature it recomputes itself (OKX: Base64 HMAC over timestamp + GET + path, a timestamp
/// within 30 s of its clock, key and passphrase; Bybit: hex HMAC over timestamp + key + window + query, a
/// timestamp inside the window) serves the recorded bodies with flags flipped between polls: each suspension
/// fires once and resolves once. Without the keys nothing is asked and every status stays unknown; an error
/// that echoes the key is scrubbed.
@Suite struct SignedTransferPollerTests {
    static let okxKey = "okx-access-7f3c9a1e2b"
    static let okxSecret = "OKX0SECRET0A1B2C3D4E5F60718293A4"
    static let okxPassphrase = "okx-pass-phrase-91"
    static let bybitKey = "bybitKeyQ8L2M4N6P0"
    static let bybitSecret = "bybitSecretZ1X2C3V4B5N6M7A8S9D0F1G2"
    static let environment = [
        "OKX_READ_KEY": okxKey, "OKX_READ_SECRET": okxSecret, "OKX_READ_PASSPHRASE": okxPassphrase,
        "BYBIT_READ_KEY": bybitKey, "BYBIT_READ_SECRET": bybitSecret,
    ]
    let t0 = Date(timeIntervalSince1970: 1_773_108_000.25)

    static func settings(_ server: MockHTTPServer) -> Settings {
        var settings = Settings()
        for id in [ExchangeID.okx, .bybit] { settings.exchanges[id] = ExchangeSettings(id: id, baseURL: server.baseURL) }
        var rule = PremiumRule(
            name: "global", assets: ["USDT", "BTC"], exchanges: [.okx, .bybit], quotes: ["USDC"], levels: PremiumRule.defaultLevels,
            clearPct: 0.04)
        rule.transfers = .annotate
        settings.premium.rules = [rule]
        var transfers = TransferSettings()
        transfers.pollInterval = .seconds(60)
        transfers.keys[.okx] = TransferKeySettings(accessKeyEnv: "OKX_READ_KEY", secretKeyEnv: "OKX_READ_SECRET", passphraseEnv: "OKX_READ_PASSPHRASE")
        transfers.keys[.bybit] = TransferKeySettings(accessKeyEnv: "BYBIT_READ_KEY", secretKeyEnv: "BYBIT_READ_SECRET")
        settings.transfers = transfers
        return settings
    }

    static func hmac(_ message: String, _ secret: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }

    /// OKX's checks, as its server makes them: key, passphrase, a timestamp near its clock, the signature.
    static func okxAccepts(_ request: MockHTTPServer.Request, now: Date) -> Bool {
        guard request.header("OK-ACCESS-KEY") == okxKey, request.header("OK-ACCESS-PASSPHRASE") == okxPassphrase,
              let stamp = request.header("OK-ACCESS-TIMESTAMP"), stamp.count == 24, stamp.hasSuffix("Z"),
              let time = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(stamp), abs(time.timeIntervalSince(now)) < 30
        else { return false }
        let requestPath = request.path + (request.query.map { "?" + $0 } ?? "")
        return request.header("OK-ACCESS-SIGN") == hmac(stamp + "GET" + requestPath, okxSecret).base64EncodedString()
    }

    /// Bybit's: key, `server_time - recv_window <= timestamp < server_time + 1000`, the signature.
    static func bybitAccepts(_ request: MockHTTPServer.Request, now: Date) -> Bool {
        guard request.header("X-BAPI-API-KEY") == bybitKey, let stamp = request.header("X-BAPI-TIMESTAMP"), let millis = Int64(stamp),
              let window = request.header("X-BAPI-RECV-WINDOW").flatMap({ Int64($0) }) else { return false }
        let server = Int64((now.timeIntervalSince1970 * 1000).rounded())
        guard server - window <= millis, millis < server + 1000 else { return false }
        let expected = hmac(stamp + bybitKey + String(window) + (request.query ?? ""), bybitSecret).map { String(format: "%02x", $0) }.joined()
        return request.header("X-BAPI-SIGN") == expected
    }

    /// What the two exchanges answer, flipped by the test, and how many requests the server turned down.
    struct Flags: Sendable {
        var okxCanWithdraw = false
        var bybitDeposit = "1"
    }

    final class Answers: Sendable {
        let flags = Mutex(Flags())
        let rejected = Mutex(0)
    }

    static func serve(_ server: MockHTTPServer, clock: ManualClock, answers: Answers) throws {
        let okx = String(decoding: try Fixtures.data("okx/asset-currencies-USDT-ccxtsrc.json"), as: UTF8.self)
        let bybit = String(decoding: try Fixtures.data("bybit/asset-coin-query-info-BTC-ccxtsrc.json"), as: UTF8.self)
        server.route("/api/v5/asset/currencies") { request in
            guard okxAccepts(request, now: clock.now()) else {
                answers.rejected.withLock { $0 += 1 }
                return .json(#"{"code":"50113","msg":"Invalid Sign","data":[]}"#, status: 401)
            }
            let open = answers.flags.withLock { $0.okxCanWithdraw }
            return .json(okx.replacingOccurrences(of: #""canWd":true"#, with: #""canWd":\#(open)"#))
        }
        server.route("/v5/asset/coin/query-info") { request in
            guard bybitAccepts(request, now: clock.now()) else {
                answers.rejected.withLock { $0 += 1 }
                return .json(#"{"retCode":10004,"retMsg":"error sign! origin_string[]","result":{},"retExtInfo":{},"time":1672194582264}"#)
            }
            let deposit = answers.flags.withLock { $0.bybitDeposit }
            return .json(bybit.replacingOccurrences(of: #""chainDeposit":"1""#, with: #""chainDeposit":"\#(deposit)""#))
        }
    }

    func factory(_ client: HTTPClient, _ clock: ManualClock, _ environment: [String: String]) -> ProducerFactory {
        let fetcher = AsyncHTTPFetcher(client: client, clock: clock)
        var factory = ProducerFactory(quoteSource: { _ in nil })
        factory.transferPoller = { settings in
            TransferPoller.make(
                settings, fetcher: fetcher, secrets: SecretResolver(environment: environment), clock: clock,
                logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        }
        return factory
    }

    func transfers(_ world: RuntimeHarness) -> [String] {
        world.sink.events.filter { $0.kind == .transfer }.map { "\($0.key) \($0.status)" }
    }

    @Test func signedPollsFireAndResolveEachSuspensionOnce() async throws {
        let clock = ManualClock(now: t0)
        let server = try await MockHTTPServer()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { Task { try? await client.shutdown(); await server.shutdown() } }
        let answers = Answers()
        try Self.serve(server, clock: clock, answers: answers)
        let world = try await RuntimeHarness.start(
            settings: Self.settings(server), store: try SQLiteStore(inMemory: ()), factory: factory(client, clock, Self.environment), clock: clock)

        // OKX's USDT cannot be withdrawn on either chain; Bybit's BTC moves both ways.
        #expect(transfers(world) == ["transfer/okx/USDT firing"])
        let okxEvent = try #require(world.sink.events.first { $0.key == "transfer/okx/USDT" })
        #expect(okxEvent.transfer?.withdraw == .suspended && okxEvent.transfer?.deposit == .ok)
        #expect(okxEvent.transfer?.networks.map(\.network) == ["TRC20", "ERC20"])
        let table = await world.runtime.loop.snapshot { $0.transferTable() }
        #expect(table.first { $0.exchange == .bybit && $0.asset == "BTC" }?.deposit == .ok)
        #expect(table.first { $0.exchange == .okx && $0.asset == "BTC" }?.withdraw == .unknown, "not in OKX's answer")

        // A minute later, the same answers: nothing new. Then Bybit stops BTC deposits: fires once.
        try await world.advance(60)
        #expect(transfers(world).count == 1)
        answers.flags.withLock { $0.bybitDeposit = "0" }
        try await world.advance(60)
        #expect(transfers(world) == ["transfer/okx/USDT firing", "transfer/bybit/BTC firing"])

        // Both resume: each resolves once (Bybit is asked first: the exchanges are polled in name order).
        answers.flags.withLock { $0 = Flags(okxCanWithdraw: true, bybitDeposit: "1") }
        try await world.advance(60)
        #expect(transfers(world) == [
            "transfer/okx/USDT firing", "transfer/bybit/BTC firing", "transfer/bybit/BTC resolved", "transfer/okx/USDT resolved",
        ])
        #expect(answers.rejected.withLock { $0 } == 0, "every request carried a signature the server recomputed")
        #expect(server.requests(to: "/api/v5/asset/currencies").count == 4)
        #expect(server.requests(to: "/v5/asset/coin/query-info").count == 4)
        #expect(await world.runtime.loop.snapshot { $0.sourceHealth["okx/transfers"]?.lastSuccess } != nil)
        await world.stop()

        // The server's check is real: the same requests signed with another secret are turned down.
        let settings = Self.settings(server)
        for (exchange, credentials) in [
            (ExchangeID.okx, TransferCredentials(accessKey: Self.okxKey, secretKey: "not-the-secret-1", passphrase: Self.okxPassphrase)),
            (.bybit, TransferCredentials(accessKey: Self.bybitKey, secretKey: "not-the-secret-2")),
        ] {
            let source = TransferStatusSource(
                adapter: try #require(TransferStatusRegistry[exchange]), settings: try #require(settings.exchanges[exchange]),
                fetcher: AsyncHTTPFetcher(client: client, clock: clock), credentials: credentials, signer: TransferSigningTests.signer)
            await #expect(throws: SourceError.self) { try await source.fetch(assets: ["BTC"]) }
        }
        #expect(answers.rejected.withLock { $0 } == 2)
    }

    @Test func withoutTheKeysNothingIsAskedAndTheStatusStaysUnknown() async throws {
        let clock = ManualClock(now: t0)
        let server = try await MockHTTPServer()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { Task { try? await client.shutdown(); await server.shutdown() } }
        try Self.serve(server, clock: clock, answers: Answers())
        // OKX's key without its passphrase, Bybit's key without its secret: neither is asked.
        var partial = Self.environment
        partial["OKX_READ_PASSPHRASE"] = nil
        partial["BYBIT_READ_SECRET"] = nil
        let world = try await RuntimeHarness.start(
            settings: Self.settings(server), store: try SQLiteStore(inMemory: ()), factory: factory(client, clock, partial), clock: clock)
        try await world.advance(60)
        #expect(server.requests.isEmpty)
        #expect(transfers(world).isEmpty)
        let table = await world.runtime.loop.snapshot { $0.transferTable() }
        #expect(!table.isEmpty && table.allSatisfy { $0.withdraw == .unknown && $0.deposit == .unknown })
        await world.stop()
    }

    @Test func rejectionsThatEchoTheKeyAreScrubbed() async throws {
        let clock = ManualClock(now: t0)
        let server = try await MockHTTPServer()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { Task { try? await client.shutdown(); await server.shutdown() } }
        server.route("/api/v5/asset/currencies") { request in
            let echo = "\(request.header("OK-ACCESS-KEY") ?? "") \(request.header("OK-ACCESS-PASSPHRASE") ?? "")"
            return .json(#"{"code":"50111","msg":"Invalid OK-ACCESS-KEY \#(echo)","data":[]}"#, status: 401)
        }
        server.route("/v5/asset/coin/query-info") { request in
            .json(#"{"retCode":10003,"retMsg":"API key is invalid. \#(request.header("X-BAPI-API-KEY") ?? "")","result":{},"time":1}"#)
        }
        let settings = Self.settings(server)
        let credentials: [ExchangeID: TransferCredentials] = [
            .okx: TransferCredentials(accessKey: Self.okxKey, secretKey: Self.okxSecret, passphrase: Self.okxPassphrase),
            .bybit: TransferCredentials(accessKey: Self.bybitKey, secretKey: Self.bybitSecret),
        ]
        for exchange in [ExchangeID.okx, .bybit] {
            let source = TransferStatusSource(
                adapter: try #require(TransferStatusRegistry[exchange]), settings: try #require(settings.exchanges[exchange]),
                fetcher: AsyncHTTPFetcher(client: client, clock: clock), credentials: credentials[exchange], signer: TransferSigningTests.signer)
            do {
                _ = try await source.fetch(assets: ["BTC"])
                Issue.record("\(exchange): a rejection was taken for an answer")
            } catch {
                #expect(error.source == "\(exchange.rawValue)/transfers")
                let shown = ("\(error) " + error.message + " " + (error.upstream ?? "")).lowercased()
                for secret in [Self.okxKey, Self.okxSecret, Self.okxPassphrase, Self.bybitKey, Self.bybitSecret] {
                    #expect(!shown.contains(secret.lowercased()), "\(exchange): \(shown)")
                }
                #expect(shown.contains("<redacted>"), "\(shown)")
            }
        }
    }
}
