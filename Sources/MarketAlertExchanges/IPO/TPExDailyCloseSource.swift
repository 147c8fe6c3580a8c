import Foundation
import MarketAlertCore
import MarketAlertKit

/// TPEx's daily close of the OTC main board (上櫃股票每日收盤行情):
/// `GET <tpex>/openapi/v1/tpex_mainboard_daily_close_quotes` → `[{"Date":"1150731",
/// "SecuritiesCompanyCode":"006201","CompanyName":"元大富櫃50","Close":"38.07",…},…]`. `Close` is dashes
/// when the stock did not trade (no price).
package struct TPExDailyCloseSource: Sendable {
    package static let dataset = "tpex_mainboard_daily_close_quotes"
    package static let priceKey = "Close"

    package let baseURL: URL
    package let timeout: Duration
    package let calendar: MarketCalendar
    package let fetcher: HTTPFetcher

    package init(baseURL: URL, timeout: Duration, calendar: MarketCalendar, fetcher: HTTPFetcher) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.calendar = calendar
        self.fetcher = fetcher
    }

    package var name: String { MarketPriceSource.tpex_close.sourceName }
    package var url: URL { TPExOpenAPIRows.url(baseURL, dataset: Self.dataset) }

    package func fetch() async throws(SourceError) -> MarketPriceReport {
        try parse(try await fetcher.get(url, source: name, timeout: timeout).body)
    }

    package func parse(_ body: Data) throws(SourceError) -> MarketPriceReport {
        try TPExOpenAPIRows.prices(body, priceKey: Self.priceKey, source: .tpex_close, calendar: calendar)
    }
}
