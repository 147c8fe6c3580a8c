import Foundation

/// v3 `premium.bases`: the premium on both KRW conversions (official USD/KRW and USDT/KRW), the rates, and
/// which one the notification alerted on. `usd_fx_pct` and `usdt_pct` are always written (null when that
/// basis has no rate); pcts at most 6 decimals, rates exactly as published.
package struct BasesDetail: Sendable, Equatable, Codable {
    package var krwVia: KRWVia
    package var usdFxPct: Double?
    package var usdtPct: Double?
    package var usdKrw: Decimal?
    package var usdtKrw: Decimal?

    package init(krwVia: KRWVia, usdFxPct: Double?, usdtPct: Double?, usdKrw: Decimal?, usdtKrw: Decimal?) {
        self.krwVia = krwVia
        self.usdFxPct = usdFxPct.map { NumberText.double(NumberText.pct($0)) }
        self.usdtPct = usdtPct.map { NumberText.double(NumberText.pct($0)) }
        self.usdKrw = usdKrw
        self.usdtKrw = usdtKrw
    }

    package init(_ bases: PremiumBases) {
        self.init(
            krwVia: bases.krwVia, usdFxPct: bases.usdFxPct, usdtPct: bases.usdtPct, usdKrw: bases.usdKrw?.rate.exact,
            usdtKrw: bases.usdtKrw?.rate.exact)
    }

    enum CodingKeys: String, CodingKey {
        case krwVia = "krw_via", usdFxPct = "usd_fx_pct", usdtPct = "usdt_pct", usdKrw = "usd_krw", usdtKrw = "usdt_krw"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(krwVia, forKey: .krwVia)
        try c.encode(usdFxPct.map(NumberText.pct), forKey: .usdFxPct)
        try c.encode(usdtPct.map(NumberText.pct), forKey: .usdtPct)
        try c.encode(usdKrw, forKey: .usdKrw)
        try c.encode(usdtKrw, forKey: .usdtKrw)
    }

    /// `usd_fx +3.12% / usdt -1.05% (alerted on usdt)`, for the human summary.
    package var text: String {
        func pct(_ value: Double?) -> String { value.map { FXMoveAlerts.signedPercent($0) } ?? "n/a" }
        return "usd_fx \(pct(usdFxPct)) / usdt \(pct(usdtPct)) (alerted on \(krwVia.rawValue))"
    }
}
