import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Synchronization
import Testing

/// `transfers:` through the built daemon: Upbit's wallet status and Binance's coin configuration (both
/// private, read with the keys the environment gives) served on 127.0.0.1 from their recorded bodies, their
/// status flipped between polls. A suspension is one `transfer` firing and its resumption one resolved; a
/// `require` rule raises nothing while its cheap side cannot withdraw and fires once it can.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct TransferIntegrationTests {
    static let environment = [
        "UPBIT_READ_ACCESS": "upbit-access-key-for-tests", "UPBIT_READ_SECRET": "upbit-secret-key-for-tests",
        "BINANCE_READ_KEY": "binance-api-key-for-tests", "BINANCE_READ_SECRET": "binance-secret-key-for-tests",
    ]

    static let transfersSection = """
        transfers:
          poll_interval: 300ms
          keys:
            upbit: { access_key_env: UPBIT_READ_ACCESS, secret_key_env: UPBIT_READ_SECRET }
            binance: { access_key_env: BINANCE_READ_KEY, secret_key_env: BINANCE_READ_SECRET }
          notify: true
        """

    /// The wallet states the mock answers with, edited by the test.
    final class Wallets: Sendable {
        let upbitBTC = Mutex("working")
        let binanceBTCWithdraw = Mutex(true)
    }

    /// Upbit's documented wallet list with BTC's `wallet_state` as set; Binance's recorded coin entry renamed
    /// BTC with `withdrawEnable` as set on every network. Both answer only a request carrying the key.
    static func serve(_ apis: MockMarketAPIs, _ wallets: Wallets) throws {
        let upbit = try Fixtures.data("upbit/status-wallet-docs.json")
        let binance = String(decoding: try Fixtures.data("binance/capital-config-getall-BAT-ccxtsrc.json"), as: UTF8.self)
        apis.server.route("/v1/status/wallet") { request in
            guard request.header("Authorization")?.hasPrefix("Bearer ") == true else { return .json(#"{"error":{"name":"jwt_verification"}}"#, status: 401) }
            let state = wallets.upbitBTC.withLock { $0 }
            let text = String(decoding: upbit, as: UTF8.self)
                .replacingOccurrences(of: #"{"currency":"BTC","wallet_state":"working""#, with: #"{"currency":"BTC","wallet_state":"\#(state)""#)
            return .json(text)
        }
        apis.server.route("/sapi/v1/capital/config/getall") { request in
            guard request.header("X-MBX-APIKEY") == environment["BINANCE_READ_KEY"], request.query?.contains("&signature=") == true else {
                return .json(#"{"code":-2014,"msg":"API-key format invalid."}"#, status: 401)
            }
            let open = wallets.binanceBTCWithdraw.withLock { $0 }
            let text = binance.replacingOccurrences(of: #""coin":"BAT""#, with: #""coin":"BTC""#)
                .replacingOccurrences(of: #""withdrawEnable":true"#, with: #""withdrawEnable":\#(open)"#)
                .replacingOccurrences(of: #""withdrawAllEnable":true"#, with: #""withdrawAllEnable":\#(open)"#)
            return .json(text)
        }
    }

    func start(_ harness: DaemonHarness, config: String) async throws -> DaemonProcess {
        try harness.writeConfig(config)
        let daemon = try harness.start(environment: Self.environment)
        do {
            try await daemon.waitUntilRunning()
        } catch {
            daemon.terminate()
            throw error
        }
        return daemon
    }

    @Test func upbitWithdrawalsPausedFireOnceAndResolveOnce() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let wallets = Wallets()
        try Self.serve(apis, wallets)
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        let daemon = try await start(harness, config: harness.standardConfig(extra: Self.transfersSection))
        defer { daemon.terminate() }
        try await pollUntil("two wallet polls", timeout: .seconds(20)) { apis.server.requests(to: "/v1/status/wallet").count >= 2 }

        wallets.upbitBTC.withLock { $0 = "paused" }
        let firing = try await daemon.waitForEvent("upbit BTC suspended") { $0.key == "transfer/upbit/BTC" && $0.status == "firing" }
        #expect(firing.kind == .transfer)
        #expect(firing.transfer?.withdraw == .suspended && firing.transfer?.deposit == .suspended)
        #expect(firing.summary.hasPrefix("upbit: BTC withdrawals and deposits suspended"), "\(firing.summary)")
        let pausedPolls = apis.server.requests(to: "/v1/status/wallet").count
        try await pollUntil("three more wallet polls", timeout: .seconds(20)) { apis.server.requests(to: "/v1/status/wallet").count >= pausedPolls + 3 }

        wallets.upbitBTC.withLock { $0 = "working" }
        _ = try await daemon.waitForEvent("upbit BTC resumed") { $0.key == "transfer/upbit/BTC" && $0.status == "resolved" }
        let resumedPolls = apis.server.requests(to: "/v1/status/wallet").count
        try await pollUntil("three more wallet polls", timeout: .seconds(20)) { apis.server.requests(to: "/v1/status/wallet").count >= resumedPolls + 3 }

        let transfers = daemon.events.filter { $0.kind == .transfer }
        #expect(transfers.map { "\($0.key) \($0.status)" } == ["transfer/upbit/BTC firing", "transfer/upbit/BTC resolved"])
        #expect(apis.server.requests(to: "/v1/status/wallet").allSatisfy { $0.header("Authorization")?.split(separator: ".").count == 3 })
        #expect(!daemon.stderrLines.contains { $0.contains("upbit-secret-key-for-tests") || $0.contains("binance-secret-key-for-tests") })
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func aRequireRuleStaysQuietWhileTheCheapSideCannotWithdraw() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let wallets = Wallets()
        wallets.binanceBTCWithdraw.withLock { $0 = false }
        try Self.serve(apis, wallets)
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        let config = harness.standardConfig(extra: Self.transfersSection)
            .replacingOccurrences(of: "      clear_pct: 0.04\n", with: "      clear_pct: 0.04\n      transfers: require\n")
        #expect(config.contains("transfers: require"))
        let daemon = try await start(harness, config: config)
        defer { daemon.terminate() }
        // The engine knows Binance's BTC cannot leave (its transfer alert is out) before the gap opens.
        _ = try await daemon.waitForEvent("binance BTC withdrawals suspended") { $0.key == "transfer/binance/BTC" && $0.status == "firing" }

        apis.set("bybit", "BTC", "100120.00")  // 0.12% over binance: a warning, were the coins movable
        let before = apis.server.requests(to: "/v5/market/tickers").count
        try await pollUntil("eight bybit polls with the gap", timeout: .seconds(20)) { apis.server.requests(to: "/v5/market/tickers").count >= before + 8 }
        #expect(!daemon.events.contains { $0.key == "premium/global/BTC" }, "a premium nobody can close was alerted")

        wallets.binanceBTCWithdraw.withLock { $0 = true }
        let event = try await daemon.waitForEvent("global premium once binance can withdraw") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        #expect(event.severity == .warning)
        #expect(event.premium?.low.exchange == "binance")
        #expect(event.premium?.transfer?.withdrawLow == .ok)
        #expect(event.premium?.transfer?.depositHigh == .unknown, "no bybit key in this config: its status is not asked")
        _ = try await daemon.waitForEvent("binance BTC withdrawals resumed") { $0.key == "transfer/binance/BTC" && $0.status == "resolved" }
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }
}
