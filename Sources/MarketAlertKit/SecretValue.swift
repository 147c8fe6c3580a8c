import Foundation

/// A secret that never prints: `description`, `debugDescription` and reflection (`dump`) show `<redacted>`.
package struct SecretValue: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package let value: String

    package init(_ value: String) { self.value = value }

    package var description: String { "<redacted>" }
    package var debugDescription: String { "<redacted>" }
    package var customMirror: Mirror { Mirror(self, children: []) }

    /// `error` with every occurrence of the secret (any case, plain or percent-encoded) replaced by
    /// `<redacted>`, including a partial copy at the end of the message (error snippets cut bodies off
    /// mid-word). A secret shorter than `SecretScrubber.minimumLength` is left alone (warned about at load).
    package func scrubbed(_ error: SourceError) -> SourceError {
        var copy = error
        copy.message = SecretScrubber.scrub(error.message, secrets: [value], partialSuffix: true)
        copy.upstream = error.upstream.map { SecretScrubber.scrub($0, secrets: [value], partialSuffix: true) }
        return copy
    }
}
