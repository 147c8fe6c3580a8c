import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Synchronization
import Testing

/// Bithumb's public transfer status through the built daemon: the standard config with Bithumb added to the
/// kimchi rule and `transfers:` on, no keys at all (Bithumb's `/public/assetsstatus/multichain/ALL` needs
/// none), served on 127.0.0.1 from the documented-shape fixture with BTC's withdrawals switched off and on
/// between polls. A suspension is one `transfer` firing and its resumption one resolved.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct BithumbTransferIntegrationTests {
    static let path = "/public/assetsstatus/multichain/ALL"
    static let btcRow = #"{"currency":"BTC","net_type":"BTC","deposit_status":1,"withdrawal_status":1}"#

    static func config(_ harness: DaemonHarness) -> String {
        harness.standardConfig(extra: "transfers:\n  poll_interval: 300ms\n  notify: true\n")
            .replacingOccurrences(of: "      exchanges: [upbit, binance]\n", with: "      exchanges: [upbit, bithumb, binance]\n")
            .replacingOccurrences(
                of: "  upbit:   { poll_interval: 250ms",
                with: "  bithumb: { poll_interval: 250ms, timeout: 2s, base_url: \"\(harness.apis.baseURL)\" }\n  upbit:   { poll_interval: 250ms")
    }

    @Test func bithumbWithdrawalsSuspendedFireOnceAndResolveOnce() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let recorded = String(decoding: try Fixtures.data("bithumb/assetsstatus-multichain-ALL-docshape.json"), as: UTF8.self)
        #expect(recorded.contains(Self.btcRow))
        let withdrawOpen = Mutex(true)
        apis.server.route(Self.path) { _ in
            let open = withdrawOpen.withLock { $0 }
            return .json(recorded.replacingOccurrences(of: Self.btcRow, with: Self.btcRow.replacingOccurrences(
                of: #""withdrawal_status":1"#, with: #""withdrawal_status":\#(open ? 1 : 0)"#)))
        }
        for (exchange, price) in [("binance", "100000.00"), ("bybit", "100000.00"), ("upbit", "140000000"), ("bithumb", "140000000")] {
            apis.set(exchange, "BTC", price)
        }
        let config = Self.config(harness)
        #expect(config.contains("exchanges: [upbit, bithumb, binance]") && config.contains("  bithumb: { poll_interval"))
        try harness.writeConfig(config)
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        try await pollUntil("two bithumb status polls", timeout: .seconds(20)) { apis.server.requests(to: Self.path).count >= 2 }

        withdrawOpen.withLock { $0 = false }
        let firing = try await daemon.waitForEvent("bithumb BTC withdrawals suspended") { $0.key == "transfer/bithumb/BTC" && $0.status == "firing" }
        #expect(firing.kind == .transfer)
        #expect(firing.transfer?.withdraw == .suspended && firing.transfer?.deposit == .ok)
        #expect(firing.transfer?.networks.map(\.network) == ["BTC"])
        #expect(firing.summary.hasPrefix("bithumb: BTC withdrawals suspended"), "\(firing.summary)")
        let pausedPolls = apis.server.requests(to: Self.path).count
        try await pollUntil("three more polls", timeout: .seconds(20)) { apis.server.requests(to: Self.path).count >= pausedPolls + 3 }

        withdrawOpen.withLock { $0 = true }
        _ = try await daemon.waitForEvent("bithumb BTC resumed") { $0.key == "transfer/bithumb/BTC" && $0.status == "resolved" }
        let resumedPolls = apis.server.requests(to: Self.path).count
        try await pollUntil("three more polls", timeout: .seconds(20)) { apis.server.requests(to: Self.path).count >= resumedPolls + 3 }

        let transfers = daemon.events.filter { $0.kind == .transfer }.map { "\($0.key) \($0.status)" }
        #expect(transfers == ["transfer/bithumb/BTC firing", "transfer/bithumb/BTC resolved"])
        #expect(apis.server.requests(to: Self.path).allSatisfy { $0.header("Authorization") == nil }, "a public endpoint: no key sent")
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }
}
