import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertOperations
import Testing

/// `ipo.value` where people read it: the `once` line, the status page's IPO table and `/api/v1/status`.
@Suite("IPO value renderings")
struct IPOValueRenderingTests {
    static let now = IPOTestKit.instant("2026-03-10T02:00:00Z")  // Tuesday 10:00 in Taipei

    static func row(drawn: Bool = false) throws -> IPOOfferingStatus {
        let offering = IPOOffering(
            source: "twse", code: "7795", name: "長聖", market: "初上市", timeZone: "Asia/Taipei",
            subscriptionStart: CalendarDay(iso: "2026-03-10"), subscriptionEnd: CalendarDay(iso: "2026-03-12"),
            offerPrice: Decimal(160), finalPrice: Decimal(160), shares: 2_520_000, currency: "TWD", lotShares: 1000,
            qualifiedApplications: drawn ? 189_374 : 0, winRatePct: drawn ? Decimal(string: "0.28", locale: nil) : 0)
        var row = IPOOfferingStatus(offering, state: .open)
        let price = MarketPrice(
            code: "7795", price: Decimal(235), date: try #require(CalendarDay(iso: "2026-03-09")), source: .tpex_emerging)
        row.value = IPOValue.of(offering, price: price)
        return row
    }

    @Test func onceSaysTheValue() throws {
        let line = OnceReport.line(try Self.row(drawn: true), now: Self.now)
        #expect(line == "7795 長聖 (初上市): opened today, closes in 2 days, subscription 2026-03-10..2026-03-12 Asia/Taipei, "
            + "offer 160 TWD, emerging 235 TWD (+46.9%), ≈ 75,000 TWD per winning lot, win rate 0.28%")
    }

    @Test func theStatusPageHasMarketSpreadAndWinRate() throws {
        let view = EngineStatus(
            at: Self.now, statusLine: "ok", settled: true, awaiting: [], sources: [], fx: [], premium: [], ipo: [try Self.row()],
            alerts: [])
        let html = StatusPage.render(view, silences: [], displayTimeZones: ["Asia/Taipei"], version: "test", startedAt: Self.now, listen: nil)
        for fragment in ["Market", "Spread", "Win rate", "emerging 235 TWD (2026-03-09)", "+46.9% (≈ 75,000 TWD/lot)"] {
            #expect(html.contains(fragment), "\(fragment) missing")
        }
    }

    @Test func theAPIDetailCarriesTheValue() throws {
        let detail = APIDocuments.ipo(try Self.row())
        #expect(detail.value?.spreadPct == Decimal(string: "46.875", locale: nil))
        let json = String(decoding: APIDocuments.encode(detail), as: UTF8.self)
        #expect(json.contains("\"expected_profit\":75000"), "\(json)")
    }
}
