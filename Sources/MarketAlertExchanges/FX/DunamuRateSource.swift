import Foundation
import MarketAlertCore
import MarketAlertKit

/// Dunamu's forex feed (Hana Bank's posted rates): `GET /v1/forex/recent?codes=FRX.KRWUSD`.
///
/// - A JSON array of rows; `[]` when the service is disabled (`.empty`); an object
///   `{status, error, message}` on errors (`.api`).
/// - `basePrice` is KRW per `currencyUnit` USD. `date`/`time` are Korean time (Asia/Seoul) and are the
///   quote time; the millisecond `timestamp` (when Dunamu stored the row, about a second later) is used only
///   when `date`/`time` are absent.
/// - `signedChangeRate` is a fraction (0.0047 = +0.47%) against the previous close; it becomes `changePct`
///   in percent. When `signedChangePrice` is also sent and the two disagree, the change is dropped rather
///   than trusted.
/// - Only KRW: the other `FRX.KRW…` codes are KRW crosses, not USD rates.
package struct DunamuRateSource: RateSource {
    package let provider = FXProviderKind.dunamu
    package static let code = "FRX.KRWUSD"
    package let baseURL: URL
    package let timeout: Duration
    package let fetcher: HTTPFetcher

    package init(baseURL: URL, timeout: Duration, fetcher: HTTPFetcher) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.fetcher = fetcher
    }

    private var name: String { provider.rawValue }

    package func fetchUSDRates(for currencies: Set<String>) async throws(SourceError) -> [FXRate] {
        guard currencies.contains("KRW") else { return [] }
        let url = try FXResponseDecoding.url(base: baseURL, path: "/v1/forex/recent", query: [("codes", Self.code)], source: name)
        let fetched = try await fetcher.get(url, source: name, timeout: timeout)
        return [try Self.parse(fetched.body, source: name)]
    }

    /// The USD/KRW rate in a `/v1/forex/recent` body.
    package static func parse(_ data: Data, source: String = FXProviderKind.dunamu.rawValue) throws(SourceError) -> FXRate {
        let rows: [Row]
        switch try FXResponseDecoding.decode(Body.self, from: data, source: source) {
        case .rows(let decoded): rows = decoded
        case .error(let error):
            let parts = [error.status.map { "status \($0)" }, error.error, error.message].compactMap { $0 }
            throw SourceError(source: source, kind: .api, message: "API error: \(parts.joined(separator: ", "))")
        }
        guard !rows.isEmpty else {
            throw SourceError(source: source, kind: .empty, message: "no rates in the response (service disabled?)")
        }
        guard let row = rows.first(where: { $0.code == code }) else {
            throw SourceError(source: source, kind: .empty, message: "\(code) is not in the response")
        }
        if let currency = row.currencyCode, currency != "USD" {
            throw SourceError(source: source, kind: .decode, message: "\(code) has currencyCode \(currency), expected USD")
        }
        let quoted = try FXResponseDecoding.rate(row.basePrice, field: "\(code).basePrice", source: source)
        var rate = quoted
        if let unit = row.currencyUnit, unit != 1 {
            let perUnit = try FXResponseDecoding.rate(unit, field: "\(code).currencyUnit", source: source)
            rate = try FXResponseDecoding.rate(quoted.exact / perUnit.exact, field: "\(code).basePrice", source: source)
        }
        return FXRate(
            base: "USD", quote: "KRW", rate: rate, provider: source, at: try quoteTime(row, source: source),
            changePct: changePct(row, price: quoted.exact))
    }

    private static func quoteTime(_ row: Row, source: String) throws(SourceError) -> Date {
        if let date = row.date, let time = row.time {
            guard let at = FXQuoteTime.local(date: date, time: time, zoneID: FXQuoteTime.seoulZoneID) else {
                throw SourceError(source: source, kind: .decode, message: "\(code) date/time \"\(date) \(time)\" is not a KST time")
            }
            return at
        }
        if let millis = row.timestamp, millis.isFinite, millis > 0 {
            return Date(timeIntervalSince1970: millis / 1000)
        }
        throw SourceError(source: source, kind: .decode, message: "\(code) has no date/time or timestamp")
    }

    /// `signedChangeRate` (a fraction) in percent, if present and consistent with `signedChangePrice`.
    private static func changePct(_ row: Row, price: Decimal) -> Double? {
        guard let fraction = row.signedChangeRate else { return nil }
        let percent = (fraction * 100).doubleValue
        guard percent.isFinite else { return nil }
        if let change = row.signedChangePrice {
            let previous = price - change
            guard previous > 0 else { return nil }
            let implied = (change / previous * 100).doubleValue
            // Both are rounded by the API; allow 1% of the change (or 0.0001 points) of disagreement.
            guard abs(implied - percent) <= max(abs(percent) * 0.01, 0.0001) else { return nil }
        }
        return percent
    }

    package enum Body: Decodable {
        case rows([Row])
        case error(ErrorBody)

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let rows = try? container.decode([Row].self) {
                self = .rows(rows)
                return
            }
            if let error = try? container.decode(ErrorBody.self), error.status != nil || error.error != nil || error.message != nil {
                self = .error(error)
                return
            }
            // Neither shape: decode the array again to surface the precise problem.
            self = .rows(try container.decode([Row].self))
        }
    }

    package struct Row: Decodable {
        package var code: String
        package var currencyCode: String?
        package var date: String?
        package var time: String?
        package var timestamp: Double?
        package var basePrice: Decimal?
        package var currencyUnit: Decimal?
        package var signedChangePrice: Decimal?
        package var signedChangeRate: Decimal?
    }

    package struct ErrorBody: Decodable {
        package var status: Int?
        package var error: String?
        package var message: String?
    }
}
