import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Synchronization
import Testing

/// OKX's and Bybit's transfer status through the built daemon: the keys (OKX's with its passphrase) come from
/// the environment, the mock answers only requests that carry them in each exchange's headers (the signature
/// itself is recomputed by `SignedTransferPollerTests`, this target has no HMAC), from the recorded bodies with
/// a flag flipped between polls. A suspension is one `transfer` firing, its end one resolved, and no secret
/// reaches the daemon's output.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct SignedTransferIntegrationTests {
    static let environment = [
        "OKX_READ_KEY": "okx-api-key-for-tests", "OKX_READ_SECRET": "okx-secret-key-for-tests", "OKX_READ_PASS": "okx-passphrase-for-tests",
        "BYBIT_READ_KEY": "bybit-api-key-for-tests", "BYBIT_READ_SECRET": "bybit-secret-key-for-tests",
    ]

    /// Which flags the mock answers with, edited by the test.
    final class Flags: Sendable {
        let okxUSDTWithdraw = Mutex(true)
        let bybitBTCDeposit = Mutex("1")
    }

    static func serve(_ apis: MockMarketAPIs, _ flags: Flags) throws {
        let okx = String(decoding: try Fixtures.data("okx/asset-currencies-USDT-ccxtsrc.json"), as: UTF8.self)
        let bybit = String(decoding: try Fixtures.data("bybit/asset-coin-query-info-BTC-ccxtsrc.json"), as: UTF8.self)
        apis.server.route("/api/v5/asset/currencies") { request in
            guard request.header("OK-ACCESS-KEY") == environment["OKX_READ_KEY"], request.header("OK-ACCESS-PASSPHRASE") == environment["OKX_READ_PASS"],
                  request.header("OK-ACCESS-SIGN")?.count == 44, request.header("OK-ACCESS-TIMESTAMP")?.hasSuffix("Z") == true
            else { return .json(#"{"code":"50111","msg":"Invalid OK-ACCESS-KEY","data":[]}"#, status: 401) }
            let open = flags.okxUSDTWithdraw.withLock { $0 }
            return .json(okx.replacingOccurrences(of: #""canWd":true"#, with: #""canWd":\#(open)"#))
        }
        apis.server.route("/v5/asset/coin/query-info") { request in
            guard request.header("X-BAPI-API-KEY") == environment["BYBIT_READ_KEY"], request.header("X-BAPI-SIGN")?.count == 64,
                  request.header("X-BAPI-TIMESTAMP").flatMap({ Int64($0) }) != nil
            else { return .json(#"{"retCode":10003,"retMsg":"API key is invalid.","result":{},"retExtInfo":{},"time":1672194582264}"#) }
            let deposit = flags.bybitBTCDeposit.withLock { $0 }
            return .json(bybit.replacingOccurrences(of: #""chainDeposit":"1""#, with: #""chainDeposit":"\#(deposit)""#))
        }
    }

    /// The standard config with OKX added and a rule over OKX and Bybit that watches their transfers (its
    /// levels out of reach: only `transfer` notifications are looked at).
    static func config(_ harness: DaemonHarness, base: String) -> String {
        harness.standardConfig(extra: """
            transfers:
              poll_interval: 300ms
              keys:
                okx: { access_key_env: OKX_READ_KEY, secret_key_env: OKX_READ_SECRET, passphrase_env: OKX_READ_PASS }
                bybit: { access_key_env: BYBIT_READ_KEY, secret_key_env: BYBIT_READ_SECRET }
            """)
        .replacingOccurrences(
            of: "  upbit:   { poll_interval", with: "  okx:     { poll_interval: 250ms, timeout: 2s, base_url: \"\(base)\" }\n  upbit:   { poll_interval")
        .replacingOccurrences(of: "    - name: kimchi\n", with: """
                - name: movable
                  assets: [USDT, BTC]
                  exchanges: [okx, bybit]
                  quotes: [USDT]
                  levels: [{ pct: 50, severity: notice }]
                  clear_pct: 40
                  transfers: annotate
                - name: kimchi

            """)
    }

    @Test func okxAndBybitSuspensionsFireOnceAndResolveOnce() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let flags = Flags()
        try Self.serve(apis, flags)
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        let config = Self.config(harness, base: apis.server.baseURL.absoluteString)
        #expect(config.contains("name: movable") && config.contains("  okx:     {"), "\(config)")
        try harness.writeConfig(config)
        let daemon = try harness.start(environment: Self.environment)
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        try await pollUntil("two polls of each", timeout: .seconds(20)) {
            apis.server.requests(to: "/api/v5/asset/currencies").count >= 2 && apis.server.requests(to: "/v5/asset/coin/query-info").count >= 2
        }

        flags.okxUSDTWithdraw.withLock { $0 = false }
        flags.bybitBTCDeposit.withLock { $0 = "0" }
        let okx = try await daemon.waitForEvent("okx USDT withdrawals suspended") { $0.key == "transfer/okx/USDT" && $0.status == "firing" }
        #expect(okx.transfer?.withdraw == .suspended && okx.transfer?.deposit == .ok)
        let bybit = try await daemon.waitForEvent("bybit BTC deposits suspended") { $0.key == "transfer/bybit/BTC" && $0.status == "firing" }
        #expect(bybit.transfer?.deposit == .suspended && bybit.transfer?.withdraw == .ok)
        let polls = apis.server.requests(to: "/v5/asset/coin/query-info").count
        try await pollUntil("three more polls", timeout: .seconds(20)) { apis.server.requests(to: "/v5/asset/coin/query-info").count >= polls + 3 }

        flags.okxUSDTWithdraw.withLock { $0 = true }
        flags.bybitBTCDeposit.withLock { $0 = "1" }
        _ = try await daemon.waitForEvent("okx USDT resumed") { $0.key == "transfer/okx/USDT" && $0.status == "resolved" }
        _ = try await daemon.waitForEvent("bybit BTC resumed") { $0.key == "transfer/bybit/BTC" && $0.status == "resolved" }
        let resumed = apis.server.requests(to: "/api/v5/asset/currencies").count
        try await pollUntil("three more polls", timeout: .seconds(20)) { apis.server.requests(to: "/api/v5/asset/currencies").count >= resumed + 3 }

        let transfers = daemon.events.filter { $0.kind == .transfer }.map { "\($0.key) \($0.status)" }
        #expect(transfers.sorted() == [
            "transfer/bybit/BTC firing", "transfer/bybit/BTC resolved", "transfer/okx/USDT firing", "transfer/okx/USDT resolved",
        ])
        let secrets = ["okx-secret-key-for-tests", "okx-passphrase-for-tests", "bybit-secret-key-for-tests"]
        #expect(!(daemon.stderrLines + daemon.stdoutLines).contains { line in secrets.contains { line.contains($0) } })
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }
}
