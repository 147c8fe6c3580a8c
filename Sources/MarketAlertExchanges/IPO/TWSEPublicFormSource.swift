import Foundation
import MarketAlertCore
import MarketAlertKit

/// TWSE's public-subscription announcements (公開申購公告) for one year:
/// `GET <base>/rwd/zh/announcement/publicForm?response=json&yy=<Gregorian year>`, falling back to the older
/// `/announcement/publicForm` path when the current one answers 404.
package struct TWSEPublicFormSource: Sendable {
    package static let path = "rwd/zh/announcement/publicForm"
    package static let legacyPath = "announcement/publicForm"

    package let settings: IPOSourceSettings
    package let calendar: MarketCalendar
    package let excludeNamePatterns: [String]
    package let fetcher: HTTPFetcher

    package init(settings: IPOSourceSettings, calendar: MarketCalendar, excludeNamePatterns: [String], fetcher: HTTPFetcher) {
        self.settings = settings
        self.calendar = calendar
        self.excludeNamePatterns = excludeNamePatterns
        self.fetcher = fetcher
    }

    package var name: String { settings.name }

    package func url(year: Int, legacy: Bool = false) -> URL {
        let endpoint = settings.baseURL.appendingPathComponent(legacy ? Self.legacyPath : Self.path)
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "response", value: "json"), URLQueryItem(name: "yy", value: String(year))]
        return components?.url ?? endpoint
    }

    /// The offerings TWSE lists for `year`, bonds and the like removed (`exclude_name_patterns`).
    package func fetch(year: Int) async throws(SourceError) -> TWSEPublicFormTable.Result {
        let body: FetchedBody
        do {
            body = try await fetcher.get(url(year: year), source: name, timeout: settings.timeout)
        } catch where error.kind == .http(status: 404) {
            body = try await fetcher.get(url(year: year, legacy: true), source: name, timeout: settings.timeout)
        }
        return try parse(body.body)
    }

    /// Decodes one response body.
    package func parse(_ body: Data) throws(SourceError) -> TWSEPublicFormTable.Result {
        let table = try TWSEPublicFormResponse.decode(body, source: name)
        if table.rows.isEmpty { return TWSEPublicFormTable.Result(offerings: [], excluded: 0, issues: []) }
        do {
            return try TWSEPublicFormTable.offerings(
                fields: table.fields, rows: table.rows, source: name, calendar: calendar,
                excludeNamePatterns: excludeNamePatterns)
        } catch {
            throw SourceError(source: name, kind: .decode, message: "publicForm table: \(error)")
        }
    }
}
