import Foundation
import MarketAlertTestSupport

/// Files one sandbox run shares with the sandbox: the mock API's responses and the configs. Lives under
/// `.build/` of the repository, which the sandbox sees at the same path (unlike the host's /tmp).
struct SandboxWorkDirectory {
    let root: URL
    var api: URL { root.appendingPathComponent("api") }
    var config: URL { root.appendingPathComponent("marketalertd.yaml") }
    var reloadedConfig: URL { root.appendingPathComponent("marketalertd-reloaded.yaml") }

    init() throws {
        root = Fixtures.repositoryRoot.appendingPathComponent(".build/systemd-it/\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// Binance `/api/v3/ticker/24hr` and Bybit `/v5/market/tickers` bodies for BTCUSDT; the mock server fills
    /// in the current time (`{{now_ms}}`), so the quotes never go stale.
    func writeTickers(binance: String, bybit: String) throws {
        try write(
            #"[{"symbol":"BTCUSDT","lastPrice":"\#(binance)","bidPrice":"\#(binance)","askPrice":"\#(binance)","closeTime":{{now_ms}}}]"#,
            to: "api/v3/ticker/24hr")
        try write(
            #"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[{"symbol":"BTCUSDT","lastPrice":"\#(bybit)","bid1Price":"\#(bybit)","ask1Price":"\#(bybit)"}]},"time":{{now_ms}}}"#,
            to: "v5/market/tickers")
    }

    /// A config polling the mock every second, one premium rule at 0.5% (warning), journal sink on.
    func writeConfig(ruleName: String, to url: URL) throws {
        let base = "http://127.0.0.1:\(SystemdUnitTests.mockPort)"
        let yaml = """
            display_time_zones: [UTC]
            exchanges:
              binance: { poll_interval: 1s, base_url: "\(base)" }
              bybit:   { poll_interval: 1s, base_url: "\(base)" }
            premium:
              reference: USD
              stablecoins_as: { USDT: USD }
              max_quote_age: 30s
              rules:
                - name: \(ruleName)
                  assets: [BTC]
                  exchanges: [binance, bybit]
                  quotes: [USDT]
                  basis: last
                  levels:
                    - { pct: 0.5, severity: warning }
                  clear_pct: 0.1
                  for: 0s
                  repeat_interval: 0s
            sinks:
              stdout: { format: json }
              journal: { enabled: true }

            """
        try Data(yaml.utf8).write(to: url, options: .atomic)
    }

    private func write(_ body: String, to path: String) throws {
        let url = api.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(body.utf8).write(to: url, options: .atomic)
    }
}
