import Foundation
import MarketAlertCore
import MarketAlertKit

/// Frankfurter (ECB reference rates, keyless): `GET <base>/latest?base=USD&symbols=KRW,…`.
///
/// - Paths: with `base_url: https://api.frankfurter.app` (the legacy host, which now answers with a 301 to
///   `api.frankfurter.dev/v1/latest`, followed by the HTTP client) the request is `/latest`; with
///   `https://api.frankfurter.dev` it is `/v1/latest`; a base URL with a path (`https://api.frankfurter.dev/v1`)
///   gets `/latest` appended.
/// - Only `date` (the ECB business day); the quote time is the ECB's 14:15 CET snapshot that day.
/// - Only ECB currencies are asked for: Frankfurter answers 404 to the whole request when one symbol is
///   unknown.
package struct FrankfurterRateSource: RateSource {
    package let provider = FXProviderKind.frankfurter
    package let baseURL: URL
    package let timeout: Duration
    package let fetcher: HTTPFetcher

    package init(baseURL: URL, timeout: Duration, fetcher: HTTPFetcher) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.fetcher = fetcher
    }

    private var name: String { provider.rawValue }

    /// `/latest`, or `/v1/latest` on the bare `api.frankfurter.dev` host.
    package var latestPath: String {
        let path = baseURL.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if path.isEmpty, baseURL.host?.lowercased() == "api.frankfurter.dev" { return "/v1/latest" }
        return "/latest"
    }

    package func fetchUSDRates(for currencies: Set<String>) async throws(SourceError) -> [FXRate] {
        let wanted = currencies.intersection(FXProviderProfile.ecbCurrencies)
        guard !wanted.isEmpty else { return [] }
        let url = try FXResponseDecoding.url(
            base: baseURL, path: latestPath, query: [("base", "USD"), ("symbols", wanted.sorted().joined(separator: ","))],
            source: name)
        let fetched = try await fetcher.get(url, source: name, timeout: timeout)
        return try Self.parse(fetched.body, currencies: wanted, source: name)
    }

    /// The requested rates in a `latest` body. Throws `.empty` when none of them is there.
    package static func parse(
        _ data: Data, currencies: Set<String>, source: String = FXProviderKind.frankfurter.rawValue
    ) throws(SourceError) -> [FXRate] {
        let body = try FXResponseDecoding.decode(Latest.self, from: data, source: source)
        guard body.base == "USD" else {
            throw SourceError(source: source, kind: .decode, message: "base is \(body.base), expected USD")
        }
        if let amount = body.amount, amount != 1 {
            throw SourceError(source: source, kind: .decode, message: "amount is \(amount), expected 1")
        }
        guard let at = FXQuoteTime.ecbReferenceTime(date: body.date) else {
            throw SourceError(source: source, kind: .decode, message: "date \"\(body.date)\" is not YYYY-MM-DD")
        }
        return try FXResponseDecoding.usdRates(body.rates, currencies: currencies, at: at, source: source)
    }

    package struct Latest: Decodable {
        package var amount: Decimal?
        package var base: String
        package var date: String
        package var rates: [String: Decimal]
    }
}
