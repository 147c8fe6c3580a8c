import Crypto
import Foundation
import MarketAlertKit
import MarketAlertStorage

/// The HMAC key behind a webhook's `secret_env`.
///
/// Two spellings are accepted:
/// - `whsec_<base64>`: the Standard Webhooks serialization; the key is the decoded bytes (padding optional).
///   Use this form when the receiver verifies with a Standard Webhooks library, since those libraries
///   base64-decode the secret they are given.
/// - anything else (a "raw" secret, e.g. the output of `openssl rand -hex 32`): the key is the secret's UTF-8
///   bytes, as with most hand-written HMAC receivers.
///
/// The spec asks for 24 to 64 random bytes; a shorter key still signs but `resolve` warns about it.
package struct WebhookSigningKey: Sendable, Equatable, CustomStringConvertible {
    package static let prefix = "whsec_"
    package static let recommendedMinimumBytes = 24

    /// Never printed: `description` is redacted.
    package let bytes: Data

    package enum ParseError: Error, Equatable {
        case empty
        /// `whsec_` followed by something that is not base64.
        case invalidBase64
    }

    package init(secret: String) throws(ParseError) {
        if secret.hasPrefix(Self.prefix) {
            var encoded = String(secret.dropFirst(Self.prefix.count))
            guard !encoded.isEmpty else { throw .empty }
            let remainder = encoded.utf8.count % 4
            if remainder == 1 { throw .invalidBase64 }
            if remainder != 0 { encoded += String(repeating: "=", count: 4 - remainder) }
            guard let data = Data(base64Encoded: encoded) else { throw .invalidBase64 }
            guard !data.isEmpty else { throw .empty }
            bytes = data
        } else {
            guard !secret.isEmpty else { throw .empty }
            bytes = Data(secret.utf8)
        }
    }

    package var byteCount: Int { bytes.count }

    package var description: String { "WebhookSigningKey(\(bytes.count) bytes, redacted)" }
}

/// Standard Webhooks signatures: `v1,` + base64(HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")).
package enum WebhookSignature {
    package static func sign(id: String, timestamp: Int64, body: Data, key: WebhookSigningKey) -> String {
        var message = Data()
        message.append(contentsOf: id.utf8)
        message.append(UInt8(ascii: "."))
        message.append(contentsOf: String(timestamp).utf8)
        message.append(UInt8(ascii: "."))
        message.append(body)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key.bytes))
        return "v1," + Data(code).base64EncodedString()
    }

    /// `webhook-id` and `webhook-timestamp` (sent always, so receivers can dedupe), plus `webhook-signature`
    /// when the webhook has a key. `timestamp` is the attempt's time in whole unix seconds.
    package static func headers(id: String, attemptAt: Date, body: Data, key: WebhookSigningKey?) -> [(String, String)] {
        let timestamp = Int64(attemptAt.timeIntervalSince1970.rounded(.down))
        var headers = [("webhook-id", id), ("webhook-timestamp", String(timestamp))]
        if let key {
            headers.append(("webhook-signature", sign(id: id, timestamp: timestamp, body: body, key: key)))
        }
        return headers
    }
}
