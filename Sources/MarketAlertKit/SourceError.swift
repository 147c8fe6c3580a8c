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
    /// Our own short reason, fit for an alert event (`source.error`): never an upstream body. Control and
    /// format characters are replaced and it is cut at `maxMessageLength` characters.
    package var message: String {
        didSet { if !Self.isClean(message) { message = Self.sanitized(message) } }
    }
    /// What the upstream answered, as an excerpt (an error body): for a debug log line, never an event.
    package var upstream: String?

    /// The longest `message` kept.
    package static let maxMessageLength = 200

    package init(source: String, kind: Kind, message: String, upstream: String? = nil) {
        self.source = source
        self.kind = kind
        self.message = Self.isClean(message) ? message : Self.sanitized(message)
        self.upstream = upstream
    }

    package var description: String { "\(source): \(message)" }

    private static func isClean(_ text: String) -> Bool {
        text.utf8.count <= maxMessageLength && text.unicodeScalars.allSatisfy { !isUnsafe($0) }
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let category = scalar.properties.generalCategory
        return category == .control || category == .format || category == .lineSeparator || category == .paragraphSeparator
    }

    /// `text` with control and format characters as spaces, cut at `maxMessageLength` characters.
    package static func sanitized(_ text: String) -> String {
        var clean = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(maxMessageLength) { clean.append(isUnsafe(scalar) ? " " : scalar) }
        return String(clean) + (text.unicodeScalars.count > maxMessageLength ? "…" : "")
    }

    /// The minimum wait the server asked for, if any.
    package var retryAfter: Duration? {
        if case .rateLimited(_, let retryAfter) = kind { return retryAfter }
        return nil
    }
}
