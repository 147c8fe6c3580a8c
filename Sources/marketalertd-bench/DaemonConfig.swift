import Foundation
import MarketAlertCore
import MarketAlertIO

/// The daemon's config for the memory run: every registry exchange (or those chosen) every second, Dunamu for USD/KRW, the two rules
/// of the evaluation benchmark over 50 assets, JSON alerts on stdout, state in a temporary directory.
enum DaemonConfig {
    /// - Parameter pollInterval: `1s` for the load run, `1h` for the idle run (after the first fetches nothing
    ///   happens but what the daemon does by itself).
    /// - Parameter streams: `stream_url` per exchange (the streaming run); without one an exchange is REST only.
    static func yaml(
        baseURL: String, stateDirectory: String, assets: [String], pollInterval: String = "1s", streams: [ExchangeID: String] = [:],
        httpPort: Int? = nil, exchanges selected: [ExchangeID]? = nil
    ) -> String {
        let chosen = Set(selected ?? ExchangeRegistry.standard.ids)
        let http = httpPort.map { "http:\n  listen: \"127.0.0.1:\($0)\"\n" } ?? ""
        let exchanges = exchangeLines(ExchangeRegistry.standard.ids.filter(chosen.contains), baseURL: baseURL, pollInterval: pollInterval, streams: streams)
        let assetList = "[" + assets.joined(separator: ", ") + "]"
        let global = EvaluationBenchmark.usdtExchanges.filter(chosen.contains).map(\.rawValue).joined(separator: ", ")
        // Every KRW exchange of the registry (Coinone too: a configured exchange no rule watches is never polled)
        // and Binance for the USDT side.
        let kimchi = (EvaluationBenchmark.krwExchanges + [.binance]).filter(chosen.contains).map(\.rawValue).joined(separator: ", ")
        return """
            # Written by marketalertd-bench --rss.
            state_dir: \(stateDirectory)
            display_time_zones: [UTC, Asia/Seoul]
            exchanges:
            \(exchanges.joined(separator: "\n"))
            \(fxAndPremium(baseURL: baseURL, fxPollInterval: pollInterval == "1s" ? "10s" : pollInterval))
              rules:
                - name: global
                  assets: \(assetList)
                  exchanges: [\(global)]
                  quotes: [USDT]
                  basis: last
                  levels:
                    - { pct: 0.05, severity: notice }
                    - { pct: 0.1, severity: warning }
                  clear_pct: 0.04
                  repeat_interval: 1h
                - name: kimchi
                  assets: \(assetList)
                  exchanges: [\(kimchi)]
                  quotes: [KRW, USDT]
                  basis: last
                  levels:
                    - { pct: 3.0, severity: warning }
                    - { pct: 5.0, severity: critical }
                  clear_pct: 2.5
                  for: 30s
                  repeat_interval: 6h
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            source_alerts: { after_failures: 3, after_silence: 5m }
            \(http)
            """
    }

    /// Each exchange on the mock server (and on its local stream when it has one in `streams`).
    static func exchangeLines(_ ids: [ExchangeID], baseURL: String, pollInterval: String, streams: [ExchangeID: String]) -> [String] {
        ids.map { id in
            let stream = streams[id].map { ", stream_url: \"\($0)\", stale_after: 30s" } ?? ""
            return "  \(id.rawValue): { poll_interval: \(pollInterval), timeout: 5s, base_url: \"\(baseURL)\"\(stream) }"
        }
    }

    /// Dunamu on the mock server for USD/KRW, and the `premium:` section up to its rules.
    static func fxAndPremium(baseURL: String, fxPollInterval: String) -> String {
        """
        fx:
          poll_interval: \(fxPollInterval)
          max_age: 15m
          providers:
            - name: dunamu
              base_url: "\(baseURL)"
        premium:
          reference: USD
          stablecoins_as: { USDT: USD, USDC: USD }
          max_quote_age: 30s
        """
    }
}
