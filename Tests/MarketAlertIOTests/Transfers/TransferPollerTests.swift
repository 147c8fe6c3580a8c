import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The transfer poller over real HTTP (a local server answering Gate's public currency list and Binance's
/// signed wallet configuration, from their recorded bodies) in virtual time: each round's statuses reach
/// the engine, a suspension fires once and its resumption resolves once, Binance's request carries the key
/// and a valid signature, and a failing endpoint is a failing source that changes no status.
@Suite struct TransferPollerTests {
    static let apiKey = "vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A"
    static let secret = "NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j"
    let t0 = Date(timeIntervalSince1970: 1_773_108_000)

    static func settings(_ server: MockHTTPServer) -> Settings {
        var settings = Settings()
        for id in [ExchangeID.gate, .binance] { settings.exchanges[id] = ExchangeSettings(id: id, baseURL: server.baseURL) }
        var rule = PremiumRule(
            name: "global", assets: ["USDT", "BAT"], exchanges: [.gate, .binance], quotes: ["USDC"],
            levels: PremiumRule.defaultLevels, clearPct: 0.04)
        rule.transfers = .annotate
        settings.premium.rules = [rule]
        var transfers = TransferSettings()
        transfers.pollInterval = .seconds(60)
        transfers.keys[.binance] = TransferKeySettings(accessKeyEnv: "BINANCE_READ_KEY", secretKeyEnv: "BINANCE_READ_SECRET")
        settings.transfers = transfers
        return settings
    }

    /// Gate's recorded USDT row with every chain's withdrawals `disabled` (or not).
    static func gateBody(withdrawDisabled: Bool) throws -> Data {
        let text = String(decoding: try Fixtures.data("gate/spot-currencies-USDT-ccxtsrc.json"), as: UTF8.self)
        return Data((withdrawDisabled ? text.replacingOccurrences(of: "\"withdraw_disabled\":false", with: "\"withdraw_disabled\":true") : text).utf8)
    }

    /// Binance's own check: the HMAC-SHA256 of the query before `&signature=`, in hex.
    static func signatureIsValid(_ query: String?) -> Bool {
        guard let query, let range = query.range(of: "&signature=") else { return false }
        let signed = String(query[..<range.lowerBound])
        let given = String(query[range.upperBound...])
        let code = HMAC<SHA256>.authenticationCode(for: Data(signed.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Data(code).map { String(format: "%02x", $0) }.joined() == given
    }

    func transferEvents(_ world: RuntimeHarness) -> [AlertEvent] { world.sink.events.filter { $0.kind == .transfer } }

    @Test func suspensionAndResumptionOverHTTPFireAndResolveOnce() async throws {
        let clock = ManualClock(now: t0)
        let server = try await MockHTTPServer()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { Task { try? await client.shutdown(); await server.shutdown() } }
        let gateState = Mutex<(disabled: Bool, failing: Bool)>((true, false))
        server.route("/api/v4/spot/currencies") { _ in
            let state = gateState.withLock { $0 }
            if state.failing { return .json(#"{"label":"SERVER_ERROR","message":"busy"}"#, status: 500) }
            return .data((try? Self.gateBody(withdrawDisabled: state.disabled)) ?? Data())
        }
        let binanceBody = try Fixtures.data("binance/capital-config-getall-BAT-ccxtsrc.json")
        server.route("/sapi/v1/capital/config/getall") { request in
            guard request.header("X-MBX-APIKEY") == Self.apiKey, Self.signatureIsValid(request.query) else {
                return .json(#"{"code":-1022,"msg":"Signature for this request is not valid."}"#, status: 401)
            }
            return .data(binanceBody)
        }
        let fetcher = AsyncHTTPFetcher(client: client, clock: clock)
        let secrets = SecretResolver(environment: ["BINANCE_READ_KEY": Self.apiKey, "BINANCE_READ_SECRET": Self.secret])
        var factory = ProducerFactory(quoteSource: { _ in nil })
        factory.transferPoller = { settings in
            TransferPoller.make(settings, fetcher: fetcher, secrets: secrets, clock: clock, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        }
        let world = try await RuntimeHarness.start(settings: Self.settings(server), store: try SQLiteStore(inMemory: ()), factory: factory, clock: clock)

        // The first round: Gate's USDT cannot be withdrawn on any chain; Binance's BAT moves both ways.
        #expect(transferEvents(world).map { "\($0.key) \($0.status)" } == ["transfer/gate/USDT firing"])
        #expect(transferEvents(world).first?.transfer?.networks.count == 3)
        let signed = try #require(server.requests(to: "/sapi/v1/capital/config/getall").first)
        #expect(Self.signatureIsValid(signed.query), "\(signed.query ?? "")")
        #expect(signed.query?.contains("timestamp=\(Int64(t0.timeIntervalSince1970 * 1000))") == true)
        let table = await world.runtime.loop.snapshot { $0.transferTable() }
        #expect(table.first { $0.exchange == .binance && $0.asset == "BAT" }?.withdraw == .ok)
        #expect(table.first { $0.exchange == .binance && $0.asset == "USDT" }?.withdraw == .unknown, "not in the answer")
        #expect(await world.runtime.loop.snapshot { $0.sourceHealth["binance/transfers"]?.lastSuccess } != nil)

        // The same answer a minute later: nothing new.
        try await world.advance(60)
        #expect(transferEvents(world).count == 1)
        #expect(server.requests(to: "/api/v4/spot/currencies").count == 2)

        // Gate fails: a failing source, the status as last known, no transfer notification.
        gateState.withLock { $0.failing = true }
        try await world.advance(60)
        #expect(transferEvents(world).count == 1)
        #expect(await world.runtime.loop.snapshot { $0.sourceHealth["gate/transfers"]?.consecutiveFailures } == 1)
        let kept = await world.runtime.loop.snapshot { $0.transferTable() }
        #expect(kept.first { $0.exchange == .gate && $0.asset == "USDT" }?.withdraw == .suspended)

        // Withdrawals resume: resolved once.
        gateState.withLock { $0 = (false, false) }
        try await world.advance(60)
        try await world.advance(60)
        #expect(transferEvents(world).map { "\($0.key) \($0.status)" } == ["transfer/gate/USDT firing", "transfer/gate/USDT resolved"])
        await world.stop()
    }

    @Test func aPrivateExchangeWithoutItsKeyIsNotAsked() async throws {
        let clock = ManualClock(now: t0)
        let server = try await MockHTTPServer()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { Task { try? await client.shutdown(); await server.shutdown() } }
        let fetcher = AsyncHTTPFetcher(client: client, clock: clock)
        let poller = try #require(TransferPoller.make(
            Self.settings(server), fetcher: fetcher, secrets: SecretResolver(environment: [:]), clock: clock,
            logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() })))
        #expect(await poller.sourceNames == ["gate/transfers"])
    }

    @Test func anErrorThatEchoesTheKeyIsScrubbedAndChecksNameMissingSecrets() async throws {
        let clock = ManualClock(now: t0)
        let server = try await MockHTTPServer()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { Task { try? await client.shutdown(); await server.shutdown() } }
        server.route("/sapi/v1/capital/config/getall") { request in
            .json(#"{"code":-2015,"msg":"Invalid API-key \#(request.header("X-MBX-APIKEY") ?? ""), IP, or permissions for action."}"#, status: 401)
        }
        let settings = Self.settings(server)
        let source = TransferStatusSource(
            adapter: try #require(TransferStatusRegistry[.binance]), settings: try #require(settings.exchanges[.binance]),
            fetcher: AsyncHTTPFetcher(client: client, clock: clock),
            credentials: TransferCredentials(accessKey: Self.apiKey, secretKey: Self.secret), signer: TransferSigningTests.signer)
        do {
            _ = try await source.fetch(assets: ["BAT"])
            Issue.record("a 401 was taken for an answer")
        } catch {
            #expect(error.source == "binance/transfers")
            let shown = error.message + " " + (error.upstream ?? "")
            #expect(!shown.lowercased().contains(Self.apiKey.lowercased()), "\(shown)")
            #expect(error.upstream?.contains("<redacted>") == true, "\(error.upstream ?? "no upstream")")
        }
        #expect("\(TransferCredentials(accessKey: Self.apiKey, secretKey: Self.secret))".contains(Self.secret) == false)

        // check-config: the secrets a key names that are not set, a key for a public exchange.
        var withGateKey = settings
        withGateKey.transfers?.keys[.gate] = TransferKeySettings(accessKeyEnv: "GATE_KEY", secretKeyEnv: "GATE_SECRET")
        let warnings = SecretChecks.warnings(withGateKey, secrets: SecretResolver(environment: ["BINANCE_READ_KEY": Self.apiKey]))
        #expect(warnings.contains { $0.hasPrefix("transfers.keys.binance.secret_key_env: secret BINANCE_READ_SECRET is not set") })
        #expect(warnings.contains { $0.hasPrefix("transfers.keys.gate: gate publishes its transfer status publicly") })
        #expect(!warnings.contains { $0.contains(Self.apiKey) })
    }
}
