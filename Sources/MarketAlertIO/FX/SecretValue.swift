import Foundation

/// A secret that never prints: `description`, `debugDescription` and reflection (`dump`) show `<redacted>`.
struct SecretValue: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let value: String

    init(_ value: String) { self.value = value }

    var description: String { "<redacted>" }
    var debugDescription: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: []) }

    /// `error` with every occurrence of the secret (plain or percent-encoded) replaced by `<redacted>`,
    /// including a partial copy at the end of the message (error snippets cut bodies off mid-word).
    func scrubbed(_ error: SourceError) -> SourceError {
        guard !value.isEmpty else { return error }
        var copy = error
        var forms = [value]
        if let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != value { forms.append(encoded) }
        for form in forms { copy.message = copy.message.replacingOccurrences(of: form, with: "<redacted>") }
        let shortest = min(4, value.count)
        for length in stride(from: value.count - 1, through: shortest, by: -1) {
            let head = String(value.prefix(length))
            if copy.message.hasSuffix(head) {
                copy.message = String(copy.message.dropLast(head.count)) + "<redacted>"
                break
            }
        }
        return copy
    }
}
