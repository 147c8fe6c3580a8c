import Foundation
import MarketAlertCore
import MarketAlertKit

/// Shared decoding steps of the FX sources: typed JSON decoding whose failures become `.decode` errors that
/// name the source and the offending key, and exact rate validation.
package enum FXResponseDecoding {
    /// JSON numbers are decoded as `Decimal` straight from their text (no `Double` round trip).
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, source: String) throws(SourceError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw SourceError(source: source, kind: .decode, message: "unexpected response: \(describe(error))")
        } catch {
            throw SourceError(source: source, kind: .decode, message: "unexpected response: \(error)")
        }
    }

    /// A positive finite rate, or a `.decode` error naming `field`.
    package static func rate(_ value: Decimal?, field: String, source: String) throws(SourceError) -> Price {
        guard let value else {
            throw SourceError(source: source, kind: .decode, message: "\(field) is missing")
        }
        guard let price = Price(value) else {
            throw SourceError(source: source, kind: .decode, message: "\(field) is not a positive rate: \(value)")
        }
        return price
    }

    /// The USD rates of `currencies` in a `rates` map (code → units per USD), sorted by currency, each a
    /// positive finite rate; currencies not in the map are skipped, and none at all is `.empty`.
    package static func usdRates(
        _ values: [String: Decimal], currencies: Set<String>, at: Date, source: String
    ) throws(SourceError) -> [FXRate] {
        var rates: [FXRate] = []
        for currency in currencies.sorted() {
            guard let value = values[currency] else { continue }
            let rate = try Self.rate(value, field: "rates.\(currency)", source: source)
            rates.append(FXRate(base: "USD", quote: currency, rate: rate, provider: source, at: at))
        }
        guard !rates.isEmpty else {
            throw SourceError(source: source, kind: .empty, message: "none of \(currencies.sorted().joined(separator: ",")) in the response")
        }
        return rates
    }

    /// `rates.KRW: expected Decimal, found string` and the like, in one short line.
    package static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "<root>" : keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): \(type) is null"
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return parent == "<root>" ? "\(key.stringValue) is missing" : "\(parent).\(key.stringValue) is missing"
        case .dataCorrupted(let context):
            let reason = context.debugDescription.prefix(120)
            return context.codingPath.isEmpty ? "not valid JSON (\(reason))" : "\(path(context)): \(reason)"
        @unknown default:
            return "\(error)"
        }
    }

    /// The request URL with `path` appended to the base URL's own path and `query` set.
    package static func url(base: URL, path: String, query: [(String, String)], source: String) throws(SourceError) -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw SourceError(source: source, kind: .connection, message: "invalid base_url \(base.absoluteString)")
        }
        var basePath = components.path
        while basePath.hasSuffix("/") { basePath.removeLast() }
        components.path = basePath + path
        components.queryItems = query.isEmpty ? nil : query.map { URLQueryItem(name: $0.0, value: $0.1) }
        guard let url = components.url else {
            throw SourceError(source: source, kind: .connection, message: "invalid base_url \(base.absoluteString)")
        }
        return url
    }
}
