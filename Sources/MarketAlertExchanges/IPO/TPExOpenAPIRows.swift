import Foundation
import MarketAlertCore
import MarketAlertKit

/// TPEx's OpenAPI answers (`<tpex>/openapi/v1/<dataset>`): a JSON array of flat objects whose values are
/// strings (`{"Date":"1150731","SecuritiesCompanyCode":"006201","Close":"38.07",…}`), ROC dates without
/// separators. A cell that is a number or null is taken as its text. An empty array (a holiday, before the
/// day's data) is an empty report.
package enum TPExOpenAPIRows {
    package static let dateKey = "Date"
    package static let codeKey = "SecuritiesCompanyCode"

    /// The prices of `priceKey` per code, dated by each row's `Date` (Asia/Taipei).
    package static func prices(
        _ body: Data, priceKey: String, source: MarketPriceSource, calendar: MarketCalendar
    ) throws(SourceError) -> MarketPriceReport {
        let rows: [[String: TWSEPublicFormResponse.Cell]]
        do {
            rows = try JSONDecoder().decode([[String: TWSEPublicFormResponse.Cell]].self, from: body)
        } catch {
            throw SourceError(source: source.sourceName, kind: .decode, message: "not a TPEx OpenAPI JSON array: \(error)")
        }
        var prices: [String: MarketPrice] = [:]
        var undated = 0
        for row in rows {
            guard let code = row[codeKey]?.text.trimmingCharacters(in: .whitespaces), PublishedText.isPlausibleCode(code),
                  prices[code] == nil, let text = row[priceKey]?.text, let price = EndOfDayText.price(text)
            else { continue }
            guard let day = row[dateKey].flatMap({ EndOfDayText.rocCompactDate($0.text, calendar: calendar) }) else {
                undated += 1
                continue
            }
            prices[code] = MarketPrice(code: code, price: price, date: day, source: source)
        }
        if prices.isEmpty, undated > 0 {
            throw SourceError(source: source.sourceName, kind: .decode, message: "\(undated) priced rows without a readable ROC Date")
        }
        return MarketPriceReport(source: source, prices: prices)
    }

    static func url(_ base: URL, dataset: String) -> URL {
        base.appendingPathComponent("openapi/v1").appendingPathComponent(dataset)
    }
}
