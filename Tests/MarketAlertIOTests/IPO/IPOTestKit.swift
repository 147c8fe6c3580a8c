import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// Helpers for the IPO tests (prefixed so they cannot clash with other suites' helpers).
enum IPOTestKit {
    static let taipei = TimeZone(identifier: "Asia/Taipei") ?? .gmt

    static func instant(_ text: String) -> Date {
        guard let date = Timestamp.parseRFC3339(text) else {
            Issue.record("bad test time \(text)")
            return .distantPast
        }
        return date
    }

    /// The Gregorian day `instant` falls on in Taipei, shifted by `days` (built with a plain Gregorian calendar).
    static func taipeiDay(_ instant: Date, plus days: Int = 0) throws -> DateComponents {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = taipei
        let shifted = try #require(gregorian.date(byAdding: .day, value: days, to: instant))
        return gregorian.dateComponents([.year, .month, .day], from: shifted)
    }

    /// `YYY/MM/DD` in the ROC calendar, for a Gregorian day (built with Foundation's ROC calendar, as TWSE
    /// would print it).
    static func rocText(_ day: DateComponents) throws -> String {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = taipei
        var roc = Calendar(identifier: .republicOfChina)
        roc.timeZone = taipei
        var noonComponents = day
        noonComponents.hour = 12
        let noon = try #require(gregorian.date(from: noonComponents))
        let parts = roc.dateComponents([.era, .year, .month, .day], from: noon)
        #expect(parts.era == 1)
        let year = try #require(parts.year), month = try #require(parts.month), dayOfMonth = try #require(parts.day)
        return "\(year)/\(month < 10 ? "0" : "")\(month)/\(dayOfMonth < 10 ? "0" : "")\(dayOfMonth)"
    }

    struct Row {
        var code: String
        var name: String
        var market = "初上市"
        var start: String
        var end: String
        var lottery: String
        var price = "45"
        var finalPrice = "45"
        var shares = "2,520,000"
    }

    /// A TWSE-shaped answer; the header is in a different order from the real one, so only names work.
    static func payload(_ rows: [Row]) throws -> String {
        let fields = ["序號", "證券代號", "證券名稱", "申購開始日", "申購結束日", "抽籤日期", "發行市場", "承銷股數", "實際承銷股數",
                      "承銷價(元)", "實際承銷價(元)", "撥券日期(上市、上櫃日期)", "中籤率(%)", "取消公開抽籤 "]
        let data = rows.enumerated().map { index, row in
            [String(index + 1), row.code, row.name, row.start, row.end, row.lottery, row.market, row.shares, row.shares,
             row.price, row.finalPrice, "", "0", ""]
        }
        struct Body: Encodable {
            var stat = "OK"
            var title = "公開申購公告-抽籤日程表"
            var fields: [String]
            var data: [[String]]
        }
        return String(decoding: try JSONEncoder().encode(Body(fields: fields, data: data)), as: UTF8.self)
    }

    static let noData = #"{"stat":"很抱歉，沒有符合條件的資料!"}"#

    /// `yy` of a request's query.
    static func year(of request: MockHTTPServer.Request) -> Int? {
        let items = URLComponents(string: "http://x/?\(request.query ?? "")")?.queryItems ?? []
        return items.first { $0.name == "yy" }?.value.flatMap { Int($0) }
    }

    static func settings(_ server: MockHTTPServer, notify: Set<IPONotification> = [.opens, .last_day]) -> IPOSettings {
        var settings = IPOSettings()
        var source = IPOSourceSettings(name: "twse", baseURL: server.baseURL)
        source.pollInterval = .seconds(3600)
        source.timeout = .seconds(5)
        settings.sources = [source]
        settings.notify = notify
        settings.excludeNamePatterns = ["公債", "債"]
        return settings
    }

    static let quietLogger = Logger(label: "ipo-test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func fetcher(_ clock: any DaemonClock) -> HTTPFetcher { AsyncHTTPFetcher(client: .shared, clock: clock) }
}
