import Foundation
import MarketAlertCore

/// One event of each kind, as the evaluators produce them, for sink tests.
enum SampleAlertEvents {
    static let at = Date(timeIntervalSince1970: 1_773_110_820)  // 2026-03-10T02:47:00Z

    static let premium = AlertEvent(
        id: "0b7c6a1e-5f1d-4c1e-9a53-3f7f2f0c9d11", key: "premium/global/BTC", kind: .premium, status: "firing",
        severity: .warning, at: at,
        summary: "BTC premium (global) 0.120% >= 0.1%: bybit 95,120.00 USDT over binance 95,006.10 USDT",
        premium: PremiumDetail(
            rule: "global", asset: "BTC", pct: 0.119886, thresholdPct: 0.1, basis: .last, reference: "USD",
            high: QuoteDetail(
                exchange: "bybit", market: "BTCUSDT", price: Decimal(string: "95120")!, quote: "USDT",
                priceRef: Decimal(string: "95120")!, side: nil, at: at),
            low: QuoteDetail(
                exchange: "binance", market: "BTCUSDT", price: Decimal(string: "95006.1")!, quote: "USDT",
                priceRef: Decimal(string: "95006.1")!, side: nil, at: at),
            fx: []))

    static let ipo = AlertEvent(
        id: "ipo-0001", key: "ipo/twse/7795", kind: .ipo, status: "open", severity: .notice, at: at,
        summary: "TWSE IPO 7795 長廣 subscription opens today (2026-03-10 … 2026-03-12)",
        ipo: IPODetail(
            source: "twse", code: "7795", name: "長廣", market: "上市", state: .open, previousState: .upcoming,
            subscriptionStart: "2026-03-10", subscriptionEnd: "2026-03-12", lotteryDate: nil, listingDate: nil,
            price: Decimal(string: "45.5"), shares: 2000, timeZone: "Asia/Taipei"))

    static let fx = AlertEvent(
        id: "fx-0001", key: "fx/USD/KRW", kind: .fx, status: "firing", severity: .info, at: at,
        summary: "USD/KRW 1,466.50 moved 0.62% vs previous close",
        fx: FXDetail(pair: "USD/KRW", rate: Decimal(string: "1466.5")!, provider: "dunamu", at: at, changePct: 0.62))

    static let source = AlertEvent(
        id: "source-0001", key: "source/bithumb", kind: .source, status: "firing", severity: .critical, at: at,
        summary: "bithumb failing for 5 polls: HTTP 503",
        source: SourceDetail(name: "bithumb", error: "HTTP 503", lastSuccess: nil, consecutiveFailures: 5))
}
