import Foundation
import MarketAlertCore
import MarketAlertKit

/// One TPEx OpenAPI dataset of end-of-day prices: `GET <tpex>/openapi/v1/<dataset>` → an array of rows with ROC
/// dates, codes and prices as text (`TPExOpenAPIRows`). The datasets differ only in their name, the price
/// field and the source they report as.
package protocol TPExPriceDataset: Sendable {
    static var dataset: String { get }
    static var priceKey: String { get }
    static var source: MarketPriceSource { get }
}

/// The daily close of the OTC main board (上櫃股票每日收盤行情): `tpex_mainboard_daily_close_quotes`,
/// `[{"Date":"1150731","SecuritiesCompanyCode":"006201","CompanyName":"元大富櫃50","Close":"38.07",…},…]`.
/// `Close` is dashes when the stock did not trade (no price).
package enum TPExDailyClose: TPExPriceDataset {
    package static let dataset = "tpex_mainboard_daily_close_quotes"
    package static let priceKey = "Close"
    package static let source = MarketPriceSource.tpex_close
}

/// The emerging board's (興櫃) latest statistics: `tpex_esb_latest_statistics`, whose `Average` is the day's
/// average price — the market price of a first listing while it trades there.
package enum TPExEmerging: TPExPriceDataset {
    package static let dataset = "tpex_esb_latest_statistics"
    package static let priceKey = "Average"
    package static let source = MarketPriceSource.tpex_emerging
}

package typealias TPExDailyCloseSource = TPExOpenAPISource<TPExDailyClose>
package typealias TPExEmergingSource = TPExOpenAPISource<TPExEmerging>

package struct TPExOpenAPISource<Dataset: TPExPriceDataset>: Sendable {
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

    package var name: String { Dataset.source.sourceName }
    package var url: URL { TPExOpenAPIRows.url(baseURL, dataset: Dataset.dataset) }

    package func fetch() async throws(SourceError) -> MarketPriceReport {
        try parse(try await fetcher.get(url, source: name, timeout: timeout).body)
    }

    package func parse(_ body: Data) throws(SourceError) -> MarketPriceReport {
        try TPExOpenAPIRows.prices(body, priceKey: Dataset.priceKey, source: Dataset.source, calendar: calendar)
    }
}
