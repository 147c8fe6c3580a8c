import Foundation
import MarketAlertCore

/// Removes secrets from text that came from outside (an upstream's error body, a transport error) before it
/// reaches a log line, a `SourceError` or a `source` event.
///
/// - Case-insensitive: an upstream that echoes the OXR app id lower-cased must not leak it.
/// - Percent-encoded copies are removed too.
/// - Secrets shorter than `minimumLength` are not scrubbed: replacing a 1-character secret would blank out
///   that character everywhere and make every message useless (and tell which character it is). They are
///   warned about at load instead (`SecretChecks`), naming the secret, never its value.
package enum SecretScrubber {
    package static let minimumLength = 8
    package static let replacement = "<redacted>"

    /// True when `secret` is too short to be scrubbed from text (and so deserves a warning).
    package static func isTooShort(_ secret: String) -> Bool { secret.count < minimumLength }

    /// `text` with every occurrence of each secret replaced by `<redacted>`, longest first.
    /// - Parameter partialSuffix: also replace a piece of a secret (at least 4 characters of its beginning)
    ///   at the very end of `text`, where an error snippet cut a body off mid-secret.
    package static func scrub(_ text: String, secrets: [String], partialSuffix: Bool = false) -> String {
        var result = text
        var forms: [String] = []
        for secret in secrets where !isTooShort(secret) {
            forms.append(secret)
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                forms.append(encoded)
            }
        }
        for form in forms.sorted(by: { $0.count > $1.count }) {
            result = result.replacingOccurrences(of: form, with: replacement, options: [.caseInsensitive, .literal])
        }
        guard partialSuffix else { return result }
        for secret in secrets where !isTooShort(secret) {
            for length in stride(from: secret.count - 1, through: 4, by: -1) {
                let head = secret.prefix(length)
                let tail = result.suffix(length)
                if tail.count == length, tail.compare(head, options: [.caseInsensitive, .literal]) == .orderedSame {
                    result = String(result.dropLast(length)) + replacement
                    break
                }
            }
        }
        return result
    }
}

extension SecretScrubber {
    /// A warning for a secret too short to be scrubbed from error texts (`SecretScrubber`): names the secret
    /// and its length, never its value.
    package static func shortSecretIssue(name: String, value: String, path: String) -> ConfigIssue? {
        guard isTooShort(value) else { return nil }
        return ConfigIssue(
            path: path,
            message: "secret \(name) is only \(value.count) characters; secrets shorter than \(minimumLength) "
                + "are not scrubbed from error texts, so an upstream echoing it could show it in logs (check the value)",
            severity: .warning)
    }
}
