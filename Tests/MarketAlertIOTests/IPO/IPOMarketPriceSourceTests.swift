import Foundation
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The three market-price sources of `ipo.value`, from their recorded bodies (`Tests/Fixtures/twse`,
/// `Tests/Fixtures/tpex`, see PROVENANCE.md) and over HTTP on 127.0.0.1.
@Suite("IPO market-price sources")
struct IPOMarketPriceSourceTests {
    let calendar = MarketCalendar(timeZone: IPOTestKit.taipei)
    let clock = ManualClock(now: IPOTestKit.instant("2026-07-31T09:30:00Z"))
    let base = URL(string: "http://127.0.0.1:1") ?? URL(fileURLWithPath: "/")

    var twse: TWSEDailyCloseSource { TWSEDailyCloseSource(baseURL: base, timeout: .seconds(5), fetcher: IPOTestKit.fetcher(clock)) }
    var tpex: TPExDailyCloseSource {
        TPExDailyCloseSource(baseURL: base, timeout: .seconds(5), calendar: calendar, fetcher: IPOTestKit.fetcher(clock))
    }
    var emerging: TPExEmergingSource {
        TPExEmergingSource(baseURL: base, timeout: .seconds(5), calendar: calendar, fetcher: IPOTestKit.fetcher(clock))
    }

    static func decimal(_ text: String) -> Decimal? { Decimal(string: text, locale: nil) }

    @Test func twseDailyCloseFromItsRecordedAnswer() throws {
        let report = try twse.parse(try Fixtures.data("twse/STOCK_DAY_ALL-20260116.json"))
        #expect(report.source == .twse_close)
        #expect(report.prices["0050"]?.price == Self.decimal("72"))
        #expect(report.prices["2330"]?.price == Self.decimal("2385"))  // "2,385.00"
        #expect(report.prices["0050"]?.date.iso == "2026-01-16")
        #expect(report.prices["9999"] == nil)  // "--": no trade, no price
        #expect(report.prices.count == 2)
    }

    @Test func twseHolidayIsAnEmptyReport() throws {
        let report = try twse.parse(try Fixtures.data("twse/STOCK_DAY_ALL-holiday.json"))
        #expect(report.prices.isEmpty && !report.failed)
    }

    @Test func tpexDailyCloseFromItsRecordedAnswer() throws {
        let report = try tpex.parse(try Fixtures.data("tpex/tpex_mainboard_daily_close_quotes.json"))
        #expect(report.source == .tpex_close)
        #expect(report.prices["006201"]?.price == Self.decimal("38.07"))
        #expect(report.prices["006201"]?.date.iso == "2026-07-31")  // ROC 1150731
        #expect(report.prices["6488"]?.price == Self.decimal("1234.5"))  // "1,234.50"
        #expect(report.prices["3162"] == nil)  // "----"
    }

    @Test func emergingAverageFromItsRecordedAnswer() throws {
        let report = try emerging.parse(try Fixtures.data("tpex/tpex_esb_latest_statistics.json"))
        #expect(report.source == .tpex_emerging)
        #expect(report.prices["1260"]?.price == Self.decimal("25.45"))  // Average, not LatestPrice 25.2
        #expect(report.prices["1260"]?.date.iso == "2026-07-30")
        #expect(report.prices["1269"]?.price == Self.decimal("70.77"))
        #expect(report.prices["7795"]?.price == Self.decimal("1010.25"))
        #expect(report.prices["6999"] == nil)  // "--"
    }

    @Test func tpexEmptyArrayIsAnEmptyReport() throws {
        #expect(try tpex.parse(try Fixtures.data("tpex/tpex_openapi-empty.json")).prices.isEmpty)
        #expect(try emerging.parse(try Fixtures.data("tpex/tpex_openapi-empty.json")).prices.isEmpty)
    }

    @Test func badBodiesAreErrorsNamingTheSource() {
        let html = Data("<!DOCTYPE html><html><title>404</title></html>".utf8)
        Self.expectDecodeError("twse_close") { () throws(SourceError) in _ = try twse.parse(html) }
        Self.expectDecodeError("tpex_close") { () throws(SourceError) in _ = try tpex.parse(html) }
        Self.expectDecodeError("tpex_emerging") { () throws(SourceError) in _ = try emerging.parse(html) }
        #expect(throws: SourceError.self) { try twse.parse(Data(#"{"stat":"查詢日期大於今日，請重新查詢!"}"#.utf8)) }
        // Priced rows without a readable ROC date are refused rather than dated wrongly.
        #expect(throws: SourceError.self) {
            try tpex.parse(Data(#"[{"Date":"2026-07-31","SecuritiesCompanyCode":"6488","Close":"100"}]"#.utf8))
        }
    }

    static func expectDecodeError(_ name: String, _ body: () throws(SourceError) -> Void) {
        do {
            try body()
            Issue.record("\(name) accepted HTML")
        } catch {
            #expect(error.source == name)
            #expect(error.kind == .decode)
        }
    }

    @Test func everyEndpointOverHTTP() async throws {
        let server = try await MockHTTPServer()
        server.route("/exchangeReport/STOCK_DAY_ALL", response: .data(try Fixtures.data("twse/STOCK_DAY_ALL-20260116.json")))
        server.route(
            "/openapi/v1/tpex_mainboard_daily_close_quotes",
            response: .data(try Fixtures.data("tpex/tpex_mainboard_daily_close_quotes.json")))
        server.route("/openapi/v1/tpex_esb_latest_statistics", response: .data(try Fixtures.data("tpex/tpex_esb_latest_statistics.json")))
        let fetcher = IPOTestKit.fetcher(clock)
        let twse = try await TWSEDailyCloseSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher).fetch()
        let tpex = try await TPExDailyCloseSource(baseURL: server.baseURL, timeout: .seconds(5), calendar: calendar, fetcher: fetcher).fetch()
        let emerging = try await TPExEmergingSource(baseURL: server.baseURL, timeout: .seconds(5), calendar: calendar, fetcher: fetcher).fetch()
        #expect(twse.prices["2330"]?.price == Self.decimal("2385"))
        #expect(tpex.prices["6488"]?.price == Self.decimal("1234.5"))
        #expect(emerging.prices["7795"]?.price == Self.decimal("1010.25"))
        #expect(server.requests(to: "/exchangeReport/STOCK_DAY_ALL").first?.query?.contains("response=json") == true)
        await server.shutdown()
    }

    @Test func aFailingServerIsAnHTTPErrorNamingTheSource() async throws {
        let server = try await MockHTTPServer()
        server.route("/openapi/v1/tpex_esb_latest_statistics", response: .json("busy", status: 503))
        do {
            _ = try await TPExEmergingSource(
                baseURL: server.baseURL, timeout: .seconds(5), calendar: calendar, fetcher: IPOTestKit.fetcher(clock)).fetch()
            Issue.record("a 503 was accepted")
        } catch {
            #expect(error.source == "tpex_emerging")
            #expect(error.kind == .http(status: 503))
        }
        await server.shutdown()
    }
}
