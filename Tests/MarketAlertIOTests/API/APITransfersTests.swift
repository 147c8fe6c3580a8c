import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// v3 `GET /api/v1/transfers` and `marketalertd_transfer_ok{exchange,asset,direction}`: a runtime in virtual
/// time whose engine receives transfer reports (as the poller sends them), read through real requests to
/// 127.0.0.1. Unknown statuses are listed with `checked_at: null` and have no gauge.
@Suite(.serialized) struct APITransfersTests {
    let start = Date(timeIntervalSince1970: 1_763_800_000)

    static func settings() throws -> Settings {
        try ConfigLoader.parse(yaml: """
            exchanges:
              binance: { poll_interval: 5s }
              bybit: { poll_interval: 5s }
            premium:
              rules:
                - { name: global, assets: [BTC, ETH], exchanges: [binance, bybit], quotes: [USDT], transfers: require }
            transfers:
              poll_interval: 5m
            """).settings
    }

    @Test func theWatchedAssetsStatusesAreListedAndGauged() async throws {
        let clock = ManualClock(now: start)
        let binance = ScriptedQuoteSource(.binance, clock: clock)
        let bybit = ScriptedQuoteSource(.bybit, clock: clock)
        binance.set("BTC", "100000")
        bybit.set("BTC", "100000")
        let liveness = EngineLiveness(stuckAfter: .seconds(30))
        let metrics = DaemonMetrics(webhookQueue: nil)
        let harness = try await RuntimeHarness.start(
            settings: try Self.settings(), store: nil, factory: scriptedFactory([binance, bybit]), clock: clock,
            prepare: { await APITestServer.prepare($0, liveness: liveness, metrics: metrics, silences: nil) })
        let api = try await APITestServer(runtime: harness.runtime, clock: clock, liveness: liveness, metrics: metrics)

        let networks = [
            NetworkTransferStatus(network: "BTC", withdraw: .suspended, deposit: .ok),
            NetworkTransferStatus(network: "BSC", withdraw: .suspended, deposit: .suspended),
        ]
        harness.runtime.inbox.send(.transfers(TransferReport(exchange: .binance, checkedAt: start, assets: ["BTC", "ETH"], decoded: ["BTC": networks])))
        try await harness.settle()

        let answer = try await api.get("/api/v1/transfers")
        #expect(answer.status == 200, "\(answer.text)")
        let rows = try #require(answer.json["transfers"] as? [[String: Any]])
        #expect(rows.map { "\($0["exchange"] ?? "") \($0["asset"] ?? "")" } == ["binance BTC", "binance ETH", "bybit BTC", "bybit ETH"])
        let btc = rows[0]
        #expect(btc["withdraw"] as? String == "suspended" && btc["deposit"] as? String == "ok")
        #expect(btc["checked_at"] as? String == Timestamp.rfc3339(start))
        #expect((btc["networks"] as? [[String: Any]])?.map { $0["network"] as? String } == ["BTC", "BSC"])
        #expect(rows[1]["withdraw"] as? String == "unknown", "ETH is not in Binance's answer")
        #expect(rows[2]["checked_at"] is NSNull, "bybit was never asked")
        for row in rows {
            let document = String(decoding: try JSONSerialization.data(withJSONObject: row, options: [.sortedKeys]), as: UTF8.self)
            #expect(try await SchemaValidator.validate([document], definition: "/$defs/transfer") == [])
        }

        let lines = try await api.get("/metrics").text.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"marketalertd_transfer_ok{exchange="binance",asset="BTC",direction="withdraw"} 0.0"#), "\(lines)")
        #expect(lines.contains(#"marketalertd_transfer_ok{exchange="binance",asset="BTC",direction="deposit"} 1.0"#))
        #expect(!lines.contains { $0.hasPrefix(#"marketalertd_transfer_ok{exchange="bybit""#) }, "unknown has no gauge")
        #expect(!lines.contains { $0.contains(#"asset="ETH""#) && $0.hasPrefix("marketalertd_transfer_ok") })
        #expect(lines.contains { $0.hasPrefix("# HELP marketalertd_transfer_ok ") })
        #expect(try await api.request(.POST, "/api/v1/transfers", body: "{}").status == 405)
        await api.stop()
        await harness.stop()
    }
}
