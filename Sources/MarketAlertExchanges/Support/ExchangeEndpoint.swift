import Foundation
import MarketAlertKit

/// Builds request URLs under a configured base URL (which may carry a path prefix, e.g. behind a proxy).
package enum ExchangeEndpoint {
    /// `base` + `path` + query, every query value percent-encoded except unreserved characters and `,`
    /// (so `symbols=["BTCUSDT","ETHUSDT"]` goes out as `symbols=%5B%22BTCUSDT%22,%22ETHUSDT%22%5D`).
    package static func url(_ base: URL, path: String, query: [(String, String)] = [], source: String) throws(SourceError) -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path.hasPrefix("/") ? path : "/" + path
        if !query.isEmpty {
            text += "?" + query.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else {
            throw SourceError(source: source, kind: .connection, message: "cannot build a request URL from \(base.absoluteString)")
        }
        return url
    }

    private static let allowed: CharacterSet = {
        var set = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        set.insert(charactersIn: "-._~,")
        return set
    }()

    package static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
