import Foundation
import MarketAlertCore
import MarketAlertKit

/// Open Exchange Rates: `GET /api/latest.json?symbols=KRW,…` (base USD, the free plan's only base).
///
/// - The app id is sent in the documented `Authorization: Token <app id>` header, never in the URL, so it
///   cannot reach a log line through a URL; error messages are scrubbed of it as well.
/// - `timestamp` is Unix **seconds** (the hour the rates were published); `rates` maps codes to numbers.
/// - Rate-limited (1,000 requests a month on the free plan): `FXFailover` calls it only when an earlier
///   provider is stale and its own last rate is no longer current, and at most every 15 minutes.
package struct OpenExchangeRatesSource: RateSource, CustomStringConvertible {
    package let provider = FXProviderKind.openexchangerates
    package let baseURL: URL
    package let appID: SecretValue
    package let timeout: Duration
    package let fetcher: HTTPFetcher

    package init(baseURL: URL, appID: String, timeout: Duration, fetcher: HTTPFetcher) {
        self.baseURL = baseURL
        self.appID = SecretValue(appID)
        self.timeout = timeout
        self.fetcher = fetcher
    }

    package var description: String { "openexchangerates(\(baseURL.absoluteString))" }

    private var name: String { provider.rawValue }

    package func fetchUSDRates(for currencies: Set<String>) async throws(SourceError) -> [FXRate] {
        let wanted = currencies.subtracting(["USD"])
        guard !wanted.isEmpty else { return [] }
        do {
            let url = try FXResponseDecoding.url(
                base: baseURL, path: "/api/latest.json", query: [("symbols", wanted.sorted().joined(separator: ","))],
                source: name)
            let fetched = try await fetcher.get(url, source: name, headers: [("Authorization", "Token \(appID.value)")], timeout: timeout)
            return try Self.parse(fetched.body, currencies: wanted, source: name)
        } catch {
            throw appID.scrubbed(error)
        }
    }

    /// The requested rates in a `latest.json` body. Throws `.empty` when none of them is there.
    package static func parse(
        _ data: Data, currencies: Set<String>, source: String = FXProviderKind.openexchangerates.rawValue
    ) throws(SourceError) -> [FXRate] {
        let body = try FXResponseDecoding.decode(Latest.self, from: data, source: source)
        guard body.base == "USD" else {
            throw SourceError(source: source, kind: .decode, message: "base is \(body.base), expected USD")
        }
        guard body.timestamp.isFinite, body.timestamp > 0 else {
            throw SourceError(source: source, kind: .decode, message: "timestamp \(body.timestamp) is not a Unix time")
        }
        let at = Date(timeIntervalSince1970: body.timestamp)
        return try FXResponseDecoding.usdRates(body.rates, currencies: currencies, at: at, source: source)
    }

    package struct Latest: Decodable {
        package var timestamp: Double
        package var base: String
        package var rates: [String: Decimal]
    }
}
