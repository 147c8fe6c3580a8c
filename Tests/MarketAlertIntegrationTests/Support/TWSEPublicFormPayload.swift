import Foundation
import MarketAlertTestSupport

/// A TWSE `publicForm` answer built from the recorded one (`twse/publicForm-reconstructed.json`): its real
/// `fields` header and all 75 real rows, with one row's dates moved so that its subscription window is open
/// around a chosen day in Asia/Taipei. Dates are written as TWSE writes them (ROC `YYY/MM/DD`), through
/// Foundation's `.republicOfChina` calendar.
struct TWSEPublicFormPayload {
    /// The path TWSE serves the list on (the query carries `response=json&yy=<Gregorian year>`).
    static let path = "/rwd/zh/announcement/publicForm"
    static let timeZone = TimeZone(identifier: "Asia/Taipei") ?? .gmt

    private struct Recorded: Codable {
        var stat: String
        var fields: [String]
        var data: [[String]]
    }

    private var recorded: Recorded

    init() throws {
        recorded = try JSONDecoder().decode(Recorded.self, from: Fixtures.data("twse/publicForm-reconstructed.json"))
    }

    var rowCount: Int { recorded.data.count }

    /// The cell of the row whose 證券代號 is `code`, in the column whose header (trimmed) is `field`.
    func cell(code: String, field: String) throws -> String {
        let row = try rowIndex(code: code)
        return recorded.data[row][try column(field)]
    }

    /// Moves the dates of `code`'s row: subscription from `start` to `start + days`, lottery two days after
    /// the end, listing ten days after the lottery, all in Asia/Taipei.
    mutating func openWindow(code: String, start: Date, days: Int) throws {
        let row = try rowIndex(code: code)
        let end = try Self.adding(days: days, to: start)
        let lottery = try Self.adding(days: 2, to: end)
        let listing = try Self.adding(days: 10, to: lottery)
        recorded.data[row][try column("申購開始日")] = try Self.roc(start)
        recorded.data[row][try column("申購結束日")] = try Self.roc(end)
        recorded.data[row][try column("抽籤日期")] = try Self.roc(lottery)
        recorded.data[row][try column("撥券日期(上市、上櫃日期)")] = try Self.roc(listing)
    }

    /// Writes one cell of `code`'s row (e.g. the lottery result: 總合格件, 中籤率(%)).
    mutating func setCell(code: String, field: String, to value: String) throws {
        let row = try rowIndex(code: code)
        recorded.data[row][try column(field)] = value
    }

    /// The answer body, as TWSE sends it (`{"stat":"OK","fields":[…],"data":[[…],…]}`).
    func body() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try encoder.encode(recorded)
    }

    // MARK: Dates

    struct PayloadError: Error, CustomStringConvertible {
        var description: String
    }

    /// `date` as an ROC date in Asia/Taipei, e.g. `115/11/22` (民國 115 = 2026).
    static func roc(_ date: Date) throws -> String {
        var calendar = Calendar(identifier: .republicOfChina)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.era, .year, .month, .day], from: date)
        guard parts.era == 1, let year = parts.year, let month = parts.month, let day = parts.day else {
            throw PayloadError(description: "\(date) has no 民國 date")
        }
        return "\(year)/" + String(format: "%02d/%02d", month, day)
    }

    /// `date` as `YYYY-MM-DD` in Asia/Taipei (how alert events name days).
    static func iso(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The Gregorian year of `date` in Asia/Taipei (TWSE's `yy`).
    static func year(_ date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.component(.year, from: date)
    }

    static func adding(days: Int, to date: Date) throws -> Date {
        var calendar = Calendar(identifier: .republicOfChina)
        calendar.timeZone = timeZone
        guard let moved = calendar.date(byAdding: .day, value: days, to: date) else {
            throw PayloadError(description: "cannot add \(days) days to \(date)")
        }
        return moved
    }

    // MARK: Table

    private func column(_ field: String) throws -> Int {
        guard let index = recorded.fields.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == field }) else {
            throw PayloadError(description: "the recorded header has no \(field) column")
        }
        return index
    }

    private func rowIndex(code: String) throws -> Int {
        let codeColumn = try column("證券代號")
        guard let index = recorded.data.firstIndex(where: { $0[codeColumn] == code }) else {
            throw PayloadError(description: "the recorded rows have no security \(code)")
        }
        return index
    }
}

extension MockMarketAPIs {
    /// Serves `payload` on TWSE's publicForm path of the mock server.
    func serveTWSE(_ payload: TWSEPublicFormPayload) throws {
        server.route(TWSEPublicFormPayload.path, response: .data(try payload.body()))
    }

    /// Requests the daemon made for the TWSE list so far.
    var twseRequests: [MockHTTPServer.Request] { server.requests(to: TWSEPublicFormPayload.path) }
}
