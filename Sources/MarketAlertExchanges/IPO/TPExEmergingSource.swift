import Foundation
import MarketAlertCore
import MarketAlertKit

/// TPEx's emerging board (興櫃) statistics: `GET <tpex>/openapi/v1/tpex_esb_latest_statistics` →
/// `[{"Date":"1150730","Time":"140006","SecuritiesCompanyCode":"1260","CompanyName":"富味鄉",
/// "PreviousAveragePrice":"25.29",…,"Average":"25.45","LatestPrice":"25.2",…},…]`. The emerging board has
/// no closing auction: its price of the day is the volume-weighted `Average` (日均價), which is what a
/// first listing's value is measured against. A stock without a trade that day has no price.
package struct TPExEmergingSource: Sendable {
    package static let dataset = "tpex_esb_latest_statistics"
    package static let priceKey = "Average"

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

    package var name: String { MarketPriceSource.tpex_emerging.sourceName }
    package var url: URL { TPExOpenAPIRows.url(baseURL, dataset: Self.dataset) }

    package func fetch() async throws(SourceError) -> MarketPriceReport {
        try parse(try await fetcher.get(url, source: name, timeout: timeout).body)
    }

    package func parse(_ body: Data) throws(SourceError) -> MarketPriceReport {
        try TPExOpenAPIRows.prices(body, priceKey: Self.priceKey, source: .tpex_emerging, calendar: calendar)
    }
}
