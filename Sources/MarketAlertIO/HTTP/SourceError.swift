import Foundation

/// Why one poll of one source failed. Always names the source; `description` is one log line.
package struct SourceError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        case timeout
        case connection
        /// A non-2xx answer other than rate limiting.
        case http(status: Int)
        /// 429 or 418 (Binance's ban); `retryAfter` from the header when given.
        case rateLimited(status: Int, retryAfter: Duration?)
        /// The body was not what the API documents (HTML error page, truncated JSON, wrong shape).
        case decode
        /// The API answered with its own error envelope (`retCode != 0`, `code != "00000"`, …).
        case api
        /// Nothing usable: an empty list, or none of the watched markets.
        case empty
    }

    package var source: String
    package var kind: Kind
    package var message: String

    package init(source: String, kind: Kind, message: String) {
        self.source = source
        self.kind = kind
        self.message = message
    }

    package var description: String { "\(source): \(message)" }

    /// The minimum wait the server asked for, if any.
    package var retryAfter: Duration? {
        if case .rateLimited(_, let retryAfter) = kind { return retryAfter }
        return nil
    }
}
