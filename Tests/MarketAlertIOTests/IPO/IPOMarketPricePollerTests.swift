import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The market-price pollers of `ipo.value` through the runtime, in virtual time, against TWSE/TPEx-shaped
/// endpoints on 127.0.0.1: polled at start and then once per trading day at 17:00 Asia/Taipei, a failure
/// retried sooner and reported as the source's health, and the price reaching the opens notification.
@Suite("IPO market-price pollers")
struct IPOMarketPricePollerTests {
    /// Tuesday 2026-03-10 10:00 in Taipei.
    static let t0 = IPOTestKit.instant("2026-03-10T02:00:00Z")
    static let tuesdayClose = IPOTestKit.instant("2026-03-10T09:00:00Z")  // 17:00 in Taipei
    static let wednesdayClose = IPOTestKit.instant("2026-03-11T09:00:00Z")

    static func serve(_ server: MockHTTPServer, emergingAverage: String, tpexFailing: Bool) throws {
        let row = IPOTestKit.Row(
            code: "7795", name: "長聖", market: "初上市", start: "115/03/10", end: "115/03/12", lottery: "115/03/16", price: "160",
            finalPrice: "160", shares: "2,520,000")
        let list = try IPOTestKit.payload([row])
        server.route(IPOPollerTests.path) { request in IPOTestKit.year(of: request) == 2026 ? .json(list) : .json(IPOTestKit.noData) }
        server.route("/exchangeReport/STOCK_DAY_ALL", response: .data(try Fixtures.data("twse/STOCK_DAY_ALL-20260116.json")))
        server.route(
            "/openapi/v1/tpex_mainboard_daily_close_quotes",
            response: tpexFailing ? .json("busy", status: 503) : .data(try Fixtures.data("tpex/tpex_openapi-empty.json")))
        let emerging = #"[{"Date":"1150309","Time":"163004","SecuritiesCompanyCode":"7795","CompanyName":"長聖","#
            + #""PreviousAveragePrice":"230","Average":"\#(emergingAverage)","LatestPrice":"236"}]"#
        server.route("/openapi/v1/tpex_esb_latest_statistics", response: .json(emerging))
    }

    @Test func pollsAtStartThenOncePerTradingDayAndReportsFailures() async throws {
        let server = try await MockHTTPServer()
        defer { Task { await server.shutdown() } }
        try Self.serve(server, emergingAverage: "235", tpexFailing: true)
        let clock = ManualClock(now: Self.t0)
        var settings = Settings()
        settings.ipo = IPOTestKit.settings(server)
        var value = IPOValueSettings()
        value.twseURL = server.baseURL
        value.tpexURL = server.baseURL
        settings.ipo.value = value
        var factory = ProducerFactory(quoteSource: { _ in nil }, ipoPoller: { source, ipo in
            IPOPoller(
                settings: source, excludeNamePatterns: ipo.excludeNamePatterns, fetcher: IPOTestKit.fetcher(clock), clock: clock,
                logger: IPOTestKit.quietLogger, random: { 0.5 })
        })
        factory.ipoPricePoller = { value, source in
            IPOMarketPricePoller.make(source, settings: value, fetcher: IPOTestKit.fetcher(clock), clock: clock, logger: IPOTestKit.quietLogger)
        }
        let world = try await RuntimeHarness.start(settings: settings, store: try SQLiteStore(inMemory: ()), factory: factory, clock: clock)

        // The emerging average reached the opens notification.
        let opens = try #require(world.sink.events.first { $0.ipo?.code == "7795" })
        #expect(opens.ipo?.value?.marketPrice == Decimal(235))
        #expect(opens.ipo?.value?.marketPriceDate == "2026-03-09")
        #expect(opens.ipo?.value?.spreadPct == Decimal(string: "46.875", locale: nil))
        // IPOTestKit's rows have no 申購股數 column: the lot is unknown, so no profit is made up.
        #expect(opens.ipo?.value?.lotShares == nil && opens.ipo?.value?.expectedProfit == nil)
        // Each source was asked once; the good ones sleep until 17:00 in Taipei.
        #expect(server.requests(to: "/openapi/v1/tpex_esb_latest_statistics").count == 1)
        #expect(server.requests(to: "/exchangeReport/STOCK_DAY_ALL").count == 1)
        #expect(clock.deadlines(of: .poll("tpex_emerging")) == [Self.tuesdayClose])
        #expect(clock.deadlines(of: .poll("twse_close")) == [Self.tuesdayClose])
        // The failing one is reported and retried sooner, but not later than the next slot.
        let health = await world.runtime.loop.snapshot { $0.sourceHealth["tpex_close"] }
        #expect(health?.consecutiveFailures == 1)
        #expect(health?.lastError?.contains("503") == true)
        let retry = try #require(clock.deadlines(of: .poll("tpex_close")).first)
        #expect(retry > Self.t0 && retry < Self.tuesdayClose)

        // At 17:00 each source is polled once more, then sleeps until Wednesday's close.
        try await world.advance(to: Self.tuesdayClose)
        #expect(server.requests(to: "/openapi/v1/tpex_esb_latest_statistics").count == 2)
        #expect(clock.deadlines(of: .poll("tpex_emerging")) == [Self.wednesdayClose])
        // One notification for the window, whatever the polls.
        #expect(world.sink.events.filter { $0.kind == .ipo }.count == 1)
        await world.stop()
    }
}
