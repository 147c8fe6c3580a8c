import Foundation
import MarketAlertCore
import MarketAlertConfigReader

/// libFuzzer target for the config reader: YAML text → `YAMLBudget` → Yams → `Settings`. Any input may be
/// rejected, but never crash, hang or blow up memory (libFuzzer's `-rss_limit_mb` and `-timeout` catch those),
/// and every rejection names at least one issue.
/// Run by `scripts/fuzz` (see `FuzzEntry.swift`).
enum FuzzConfig {
    static func run(_ input: Data) {
        guard input.count <= YAMLBudget.maxBytes else { return }
        let text = String(decoding: input, as: UTF8.self)
        do throws(ConfigError) {
            let loaded = try ConfigLoader.parse(yaml: text)
            _ = loaded.settings.enabledExchanges
        } catch {
            precondition(!error.issues.isEmpty, "a rejected config must name a problem")
        }
    }
}
