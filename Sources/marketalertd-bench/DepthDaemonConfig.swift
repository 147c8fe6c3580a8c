import Foundation
import MarketAlertCore

/// The daemon's config for the depth-streaming run (`--depth-streams`): the round-2 eight on their local
/// streams (REST, polled every 5 s as a fallback while a stream is down, on the mock server; Binance's book
/// snapshot and Coinbase's books from there too), Dunamu for USD/KRW, one `basis: depth` rule over every
/// watched asset at 10,000 USD net of the default 0.1% taker fees (20 levels kept, the default), JSON alerts
/// on stdout, the HTTP API for `/metrics`.
///
/// The fed books sit 1 bp apart around the same USD price everywhere: the executable premium is about
/// -0.2% (spread and fees) on every asset, except the latency market (Bithumb's first asset) while it is
/// raised 3% (about +2.7%): it fires at 1% and resolves under 0.5%.
enum DepthDaemonConfig {
    static let rule = "depth"

    static func yaml(baseURL: String, stateDirectory: String, assets: [String], streams: [ExchangeID: String], httpPort: Int) -> String {
        let exchanges = DaemonConfig.exchangeLines(BenchOptions.roundTwo, baseURL: baseURL, pollInterval: "5s", streams: streams)
        return """
            # Written by marketalertd-bench --depth-streams.
            state_dir: \(stateDirectory)
            display_time_zones: [UTC, Asia/Seoul]
            exchanges:
            \(exchanges.joined(separator: "\n"))
            \(DaemonConfig.fxAndPremium(baseURL: baseURL, fxPollInterval: "10s"))
              rules:
                - name: \(rule)
                  assets: [\(assets.joined(separator: ", "))]
                  exchanges: [\(BenchOptions.roundTwo.map(\.rawValue).joined(separator: ", "))]
                  quotes: [USDT, KRW]
                  basis: depth
                  notional: 10000
                  net_of_fees: true
                  levels:
                    - { pct: 1.0, severity: warning }
                  clear_pct: 0.5
                  repeat_interval: 1h
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            source_alerts: { after_failures: 3, after_silence: 5m }
            http:
              listen: "127.0.0.1:\(httpPort)"
            """
    }
}
