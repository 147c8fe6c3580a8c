import Foundation
import MarketAlertCore
import Testing

/// `ipo.value`: which price source a market type calls for, the spread and the expected profit in exact
/// decimals, and how renderings say it.
@Suite("IPO value")
struct IPOValueTests {
    static func offering(
        code: String = "7795", name: String = "長聖", market: String? = "初上市", offer: String = "160", final: String? = nil,
        lot: Int? = 1000, winRate: String? = nil, qualified: Int? = nil
    ) -> IPOOffering {
        IPOOffering(
            source: "twse", code: code, name: name, market: market, timeZone: "Asia/Taipei",
            subscriptionStart: CalendarDay(iso: "2026-03-10"), subscriptionEnd: CalendarDay(iso: "2026-03-12"),
            lotteryDate: CalendarDay(iso: "2026-03-16"), offerPrice: Decimal(string: offer, locale: nil),
            finalPrice: final.flatMap { Decimal(string: $0, locale: nil) }, shares: 1_378_000, currency: "TWD",
            lotShares: lot, qualifiedApplications: qualified, winRatePct: winRate.flatMap { Decimal(string: $0, locale: nil) })
    }

    static func price(_ text: String, _ source: MarketPriceSource, code: String = "7795") throws -> MarketPrice {
        MarketPrice(
            code: code, price: try #require(Decimal(string: text, locale: nil)), date: try #require(CalendarDay(iso: "2026-03-09")),
            source: source)
    }

    @Test(arguments: [
        ("初上市", MarketPriceSource.tpex_emerging), ("初上櫃", .tpex_emerging), ("創新板初上市", .tpex_emerging),
        ("上市增資", .twse_close), ("第一上市公司現金增資", .twse_close), ("上櫃增資", .tpex_close),
    ])
    func marketTypePicksItsSource(market: String, expected: MarketPriceSource) {
        #expect(MarketPriceSource.forMarket(market) == expected)
    }

    @Test(arguments: [
        ("初上市", MarketPriceSource?.some(.twse_close)), ("創新板初上市", .twse_close), ("初上櫃", .tpex_close),
        ("上市增資", nil), ("上櫃增資", nil), ("其他", nil),
    ])
    func aFirstListingTradesOnTWSEOrTPExAfterTheEmergingBoard(market: String, expected: MarketPriceSource?) {
        #expect(MarketPriceSource.afterListing(market) == expected)
    }

    @Test func unknownMarketTypesHaveNoSource() {
        #expect(MarketPriceSource.forMarket(nil) == nil)
        #expect(MarketPriceSource.forMarket("") == nil)
        #expect(MarketPriceSource.forMarket("公司債") == nil)
    }

    @Test func spreadAndProfitAreExact() throws {
        let value = IPOValue.of(Self.offering(), price: try Self.price("235", .tpex_emerging))
        #expect(value.offerPrice == Decimal(160))
        #expect(value.marketPrice == Decimal(235))
        #expect(value.marketPriceSource == .tpex_emerging)
        #expect(value.marketPriceDate == "2026-03-09")
        #expect(value.spreadPct == Decimal(string: "46.875", locale: nil))  // 235 / 160 = 1.46875
        #expect(value.lotShares == 1000)
        #expect(value.expectedProfit == Decimal(75_000))  // (235 - 160) * 1000
        #expect(value.winRatePct == nil)
        #expect(value.text == "offer 160 TWD, emerging 235 TWD (+46.9%), ≈ 75,000 TWD per winning lot")
    }

    @Test func decimalsStayExactAndRepeatingSpreadsRoundToSixPlaces() throws {
        // 上櫃增資 建舜電 at 11.13 against an OTC close of 12.47: (12.47 - 11.13) * 1000 = 1340 exactly.
        let otc = IPOValue.of(
            Self.offering(code: "3322", market: "上櫃增資", offer: "11.13", final: "11.13"),
            price: try Self.price("12.47", .tpex_close, code: "3322"))
        #expect(otc.expectedProfit == Decimal(1340))
        #expect(otc.spreadPct == Decimal(string: "12.039533", locale: nil))  // 12.47 / 11.13 - 1 = 0.1203953279…
        // 70 / 60 - 1 = 0.1666…: six places, rounded half up.
        let listed = IPOValue.of(Self.offering(market: "上市增資", offer: "60"), price: try Self.price("70", .twse_close))
        #expect(listed.spreadPct == Decimal(string: "16.666667", locale: nil))
        #expect(listed.expectedProfit == Decimal(10_000))
    }

    @Test func theFinalPriceIsTheOfferOnceFixed() throws {
        let value = IPOValue.of(Self.offering(offer: "95", final: "93.33"), price: try Self.price("100", .tpex_emerging))
        #expect(value.offerPrice == Decimal(string: "93.33", locale: nil))
        #expect(value.expectedProfit == Decimal(6670))
    }

    @Test func aLossIsSaidWithItsSign() throws {
        let value = IPOValue.of(Self.offering(market: "上市增資", offer: "60"), price: try Self.price("54", .twse_close))
        #expect(value.spreadPct == Decimal(-10))
        #expect(value.expectedProfit == Decimal(-6000))
        #expect(value.text == "offer 60 TWD, close 54 TWD (-10.0%), ≈ -6,000 TWD per winning lot")
        #expect(!value.isWorth(minSpreadPct: 0))
    }

    @Test func anUnknownPriceIsSaidAndPassesTheMinimum() {
        let value = IPOValue.of(Self.offering(), price: nil)
        #expect(value.marketPrice == nil && value.spreadPct == nil && value.expectedProfit == nil)
        #expect(value.marketPriceSource == .tpex_emerging)
        #expect(value.isWorth(minSpreadPct: 50))
        #expect(value.text == "offer 160 TWD, market price unknown")
    }

    @Test func theWinRateShowsOnlyOnceDrawn() throws {
        let before = IPOValue.of(Self.offering(winRate: "0", qualified: 0), price: nil)
        #expect(before.winRatePct == nil)
        let after = IPOValue.of(Self.offering(winRate: "0.28", qualified: 189_374), price: try Self.price("235", .tpex_emerging))
        #expect(after.winRatePct == Decimal(string: "0.28", locale: nil))
        #expect(after.text.hasSuffix(", win rate 0.28%"))
    }

    @Test func theEventObjectHasEveryKey() throws {
        let value = IPOValue.of(Self.offering(), price: try Self.price("235", .tpex_emerging))
        let json = try #require(String(data: try JSONEncoder().encode(value), encoding: .utf8))
        for key in ["offer_price", "currency", "market_price", "market_price_source", "market_price_date", "spread_pct",
                    "lot_shares", "expected_profit", "win_rate_pct"] {
            #expect(json.contains("\"\(key)\""), "\(key) missing in \(json)")
        }
        #expect(json.contains("\"market_price_source\":\"tpex_emerging\""))
        #expect(json.contains("\"win_rate_pct\":null"))
    }
}
