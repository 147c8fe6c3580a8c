import Foundation
import MarketAlertTestSupport

/// TWSE's and TPEx's end-of-day endpoints on the mock server, as `ipo.value` reads them: TWSE
/// `exchangeReport/STOCK_DAY_ALL` (`{"stat","date","fields","data"}`, Gregorian `date`) and TPEx's OpenAPI
/// arrays (ROC `Date`), with prices as strings with thousands separators, shaped like the recorded bodies in
/// `Tests/Fixtures/twse` and `Tests/Fixtures/tpex`.
extension MockMarketAPIs {
    static let stockDayAllPath = "/exchangeReport/STOCK_DAY_ALL"
    static let tpexClosePath = "/openapi/v1/tpex_mainboard_daily_close_quotes"
    static let tpexEmergingPath = "/openapi/v1/tpex_esb_latest_statistics"

    /// Serves the three endpoints: closes by code at TWSE and TPEx, emerging averages by code, all of the
    /// trading day `day` (Asia/Taipei).
    func serveMarketPrices(day: Date, twse: [String: String], tpex: [String: String], emerging: [String: String]) throws {
        let gregorian = TWSEPublicFormPayload.iso(day).replacingOccurrences(of: "-", with: "")
        let roc = try TWSEPublicFormPayload.roc(day).replacingOccurrences(of: "/", with: "")
        let fields = ["證券代號", "證券名稱", "成交股數", "成交金額", "開盤價", "最高價", "最低價", "收盤價", "漲跌價差", "成交筆數"]
        let rows = twse.sorted { $0.key < $1.key }.map { code, close in [code, "股\(code)", "1,000", "1,000", close, close, close, close, "0.00", "1"] }
            + [["9999", "停牌股", "0", "0", "--", "--", "--", "--", "--", "0"]]
        let stockDayAll: [String: Any] = ["stat": "OK", "date": gregorian, "title": "當日日成交資訊 (股)", "fields": fields, "data": rows]
        server.route(Self.stockDayAllPath, response: .data(try JSONSerialization.data(withJSONObject: stockDayAll)))
        let closes = tpex.sorted { $0.key < $1.key }.map { code, close in
            ["Date": roc, "SecuritiesCompanyCode": code, "CompanyName": "櫃\(code)", "Close": close, "Open": close, "Average": close]
        } + [["Date": roc, "SecuritiesCompanyCode": "3162", "CompanyName": "精確", "Close": "----", "Open": "----", "Average": "----"]]
        server.route(Self.tpexClosePath, response: .data(try JSONSerialization.data(withJSONObject: closes)))
        let averages = emerging.sorted { $0.key < $1.key }.map { code, average in
            ["Date": roc, "Time": "163004", "SecuritiesCompanyCode": code, "CompanyName": "興\(code)", "PreviousAveragePrice": average,
             "Average": average, "LatestPrice": average]
        }
        server.route(Self.tpexEmergingPath, response: .data(try JSONSerialization.data(withJSONObject: averages)))
    }

    var marketPriceRequests: Int {
        [Self.stockDayAllPath, Self.tpexClosePath, Self.tpexEmergingPath].map { server.requests(to: $0).count }.reduce(0, +)
    }
}
