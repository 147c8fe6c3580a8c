import Foundation
import MarketAlertCore
import MarketAlertKit

/// TWSE's daily close of every listed security (上市個股日成交資訊):
/// `GET <twse>/exchangeReport/STOCK_DAY_ALL?response=json` →
/// `{"stat":"OK","date":"20260603","title":"…","fields":["證券代號","證券名稱",…,"收盤價",…],"data":[[…],…]}`.
/// Columns are found by name; prices are strings with thousands separators, `--` when the stock did not
/// trade. The no-data answer (`很抱歉，沒有符合條件的資料!`, a holiday) is an empty report, not an error.
package struct TWSEDailyCloseSource: Sendable {
    package static let path = "exchangeReport/STOCK_DAY_ALL"
    package static let codeColumn = "證券代號"
    package static let closeColumn = "收盤價"

    package let baseURL: URL
    package let timeout: Duration
    package let fetcher: HTTPFetcher

    package init(baseURL: URL, timeout: Duration, fetcher: HTTPFetcher) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.fetcher = fetcher
    }

    package var name: String { MarketPriceSource.twse_close.sourceName }

    package var url: URL {
        let endpoint = baseURL.appendingPathComponent(Self.path)
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "response", value: "json")]
        return components?.url ?? endpoint
    }

    package func fetch() async throws(SourceError) -> MarketPriceReport {
        try parse(try await fetcher.get(url, source: name, timeout: timeout).body)
    }

    package func parse(_ body: Data) throws(SourceError) -> MarketPriceReport {
        let response: Response
        do {
            response = try JSONDecoder().decode(Response.self, from: body)
        } catch {
            throw SourceError(source: name, kind: .decode, message: "not a STOCK_DAY_ALL JSON answer: \(error)")
        }
        let stat = response.stat.trimmingCharacters(in: .whitespacesAndNewlines)
        if stat.contains(TWSEPublicFormResponse.noDataMarker) { return MarketPriceReport(source: .twse_close, prices: [:]) }
        guard stat == "OK" else { throw SourceError(source: name, kind: .api, message: "stat \"\(String(stat.prefix(80)))\"") }
        let rows = response.data ?? []
        if rows.isEmpty { return MarketPriceReport(source: .twse_close, prices: [:]) }
        guard let dateText = response.date, let day = EndOfDayText.gregorianCompactDate(dateText) else {
            throw SourceError(source: name, kind: .decode, message: "STOCK_DAY_ALL without a readable date (\(response.date ?? "none"))")
        }
        let fields = (response.fields ?? []).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let code = fields.firstIndex(of: Self.codeColumn), let close = fields.firstIndex(of: Self.closeColumn) else {
            throw SourceError(source: name, kind: .decode, message: "STOCK_DAY_ALL header lacks \(Self.codeColumn) or \(Self.closeColumn)")
        }
        var prices: [String: MarketPrice] = [:]
        for row in rows where row.count == fields.count {
            let security = row[code].text.trimmingCharacters(in: .whitespaces)
            guard PublishedText.isPlausibleCode(security), prices[security] == nil,
                  let price = EndOfDayText.price(row[close].text)
            else { continue }
            prices[security] = MarketPrice(code: security, price: price, date: day, source: .twse_close)
        }
        return MarketPriceReport(source: .twse_close, prices: prices)
    }

    private struct Response: Decodable {
        var stat: String
        var date: String?
        var fields: [String]?
        var data: [[TWSEPublicFormResponse.Cell]]?
    }
}
