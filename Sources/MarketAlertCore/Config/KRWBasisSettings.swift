import Foundation

/// v3 `krw_via`: how a premium rule turns KRW prices into USD.
package enum KRWVia: String, Sendable, CaseIterable, Codable {
    /// The official USD/KRW rate of the FX providers (the default, and versions 1 and 2).
    case usdFx = "usd_fx"
    /// The KRW price of USDT on the Korean exchanges (`fx.usdt_krw`), then USDT = USD.
    case usdt
}

/// v3 `fx.usdt_krw`: where the KRW price of USDT comes from — the first of these exchanges whose KRW-USDT
/// market has a fresh quote.
package struct USDTKRWSettings: Sendable, Equatable {
    package var exchanges: [ExchangeID]

    package init(exchanges: [ExchangeID]) { self.exchanges = exchanges }

    /// The market every source is asked for.
    package static let pair = MarketPair(base: "USDT", quote: "KRW")
}

/// v3 `fx.alerts[]` with `pair: USDT/KRW` and `premium_pct`: the tether premium, |USDT/KRW ÷ USD/KRW − 1|.
package struct TetherPremiumAlertSettings: Sendable, Equatable {
    package var premiumPct: Double

    package init(premiumPct: Double) { self.premiumPct = premiumPct }

    package static let pair = "USDT/KRW"
}

extension FXSettings {
    /// `fx.usdt_krw` (a mapping with `exchanges`).
    mutating func readUSDTKRW(_ t: ConfigTable) {
        guard let sub = t.table("usdt_krw") else { return }
        let names = sub.required("exchanges", sub.stringList) ?? []
        sub.finish()
        if names.isEmpty, sub.has("exchanges") { sub.error("exchanges", "must list at least one exchange") }
        if Set(names).count != names.count { sub.error("exchanges", "lists an exchange twice") }
        guard !names.isEmpty else { return }
        usdtKrw = USDTKRWSettings(exchanges: names.map { ExchangeID($0.lowercased()) })
    }

    /// An `fx.alerts` entry whose pair is USDT/KRW: `premium_pct` only. True when it was one (read here).
    mutating func readTetherAlert(_ sub: ConfigTable) -> Bool {
        guard sub.string("pair")?.uppercased() == TetherPremiumAlertSettings.pair else { return false }
        if sub.has("change_pct") { sub.error("change_pct", "USDT/KRW takes premium_pct (the tether premium), not change_pct") }
        let pct = sub.required("premium_pct", sub.number)
        sub.finish()
        guard let pct else { return true }
        guard pct > 0, pct.isFinite else {
            sub.error("premium_pct", "must be greater than 0, got \(pct)")
            return true
        }
        if tetherAlerts.isEmpty { tetherAlerts.append(TetherPremiumAlertSettings(premiumPct: pct)) } else {
            sub.error("pair", "USDT/KRW is listed twice")
        }
        return true
    }
}

extension Settings {
    /// `krw_via: usdt`, the tether premium and `fx.usdt_krw` refer to each other and to the exchanges.
    func validateKRWBases(_ root: ConfigTable) {
        let diagnostics = root.diagnosticsSink
        if let usdtKrw = fx.usdtKrw {
            for (index, exchange) in usdtKrw.exchanges.enumerated() {
                let path = "fx.usdt_krw.exchanges[\(index)]"
                guard let settings = exchanges[exchange] else {
                    diagnostics.error(path, "exchange \"\(exchange.rawValue)\" is not configured under exchanges", at: nil)
                    continue
                }
                if !settings.enabled {
                    diagnostics.warning(path, "exchange \"\(exchange.rawValue)\" is disabled; USDT/KRW is not taken from it")
                }
            }
        }
        let needsUSDT = fx.usdtKrw == nil
        for (index, rule) in premium.rules.enumerated() where rule.krwVia == .usdt && needsUSDT {
            diagnostics.error("premium.rules[\(index)].krw_via", "usdt needs fx.usdt_krw.exchanges (where USDT/KRW comes from)", at: nil)
        }
        if !fx.tetherAlerts.isEmpty {
            if needsUSDT { diagnostics.error("fx.alerts", "the USDT/KRW premium needs fx.usdt_krw.exchanges", at: nil) }
            if fx.providers.isEmpty { diagnostics.error("fx.alerts", "the USDT/KRW premium needs a USD/KRW provider in fx.providers", at: nil) }
        }
    }
}

extension PremiumRule {
    /// Whether this rule compares KRW markets with USD-quoted ones (its notifications carry `premium.bases`).
    package func comparesKRWWithUSD(stablecoinsAs: [String: String]) -> Bool {
        quotes.contains("KRW") && quotes.contains { ($0 == "USD") || stablecoinsAs[$0] == "USD" }
    }
}
