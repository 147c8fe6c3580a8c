import Foundation
import MarketAlertCore
import MarketAlertKit

extension StatusPage {
    /// v3, `basis: depth` rows: a line under the premium's row with the trade behind it, e.g.
    /// `10,000 USD: buy binance BTCUSDT (3 levels, VWAP 60,012.4 USDT, fee 0.1%) → sell upbit KRW-BTC
    /// (2 levels, VWAP 87,000,000 KRW, fee 0.05%): +0.84% net (gross +1.02%); ≥ 0.3% up to 42,000 USD`.
    static func executableRow(_ html: HTMLBuffer, _ row: PremiumStatus, columns: Int) {
        guard let trade = row.executable, let observation = row.observation else { return }
        let key = PremiumEvents.key(rule: row.rule, asset: row.asset)
        html.raw("<tr class=\"executable\" data-executable=\"\(MarkupEscaping.html(key))\"><td colspan=\"\(columns)\">")
        html.text(executableText(trade, reference: row.reference, buyCurrency: observation.low.quote.quote,
            sellCurrency: observation.high.quote.quote, threshold: row.levels.first?.pct))
        html.raw("</td></tr>")
    }

    static func executableText(_ trade: ExecutableDetail, reference: String, buyCurrency: String, sellCurrency: String, threshold: Double?) -> String {
        func signed(_ pct: Double) -> String { (pct >= 0 ? "+" : "") + NumberText.pctText(pct) + "%" }
        func leg(_ verb: String, _ leg: ExecutableDetail.Leg, currency: String) -> String {
            "\(verb) \(leg.exchange) \(leg.market) (\(leg.levels) level\(leg.levels == 1 ? "" : "s"), "
                + "VWAP \(NumberText.money(leg.vwap, currency: currency)) \(currency), fee \(NumberText.pctText(leg.feePct))%)"
        }
        var text = "\(NumberText.money(trade.notional, currency: reference)) \(reference): "
            + leg("buy", trade.buy, currency: buyCurrency) + " → " + leg("sell", trade.sell, currency: sellCurrency)
            + ": \(signed(trade.netPct)) net (gross \(signed(trade.grossPct)))"
        if let most = trade.maxNotional, let threshold {
            text += "; ≥ \(NumberText.pctText(threshold))% up to \(NumberText.money(most, currency: reference)) \(reference)"
        } else {
            text += "; max notional –"
        }
        return text
    }
}
