import Foundation

/// One mailbox as written in `sinks.email[].from` / `to`: `alerts@example.org` or
/// `marketalertd <alerts@example.org>`. Only what an SMTP envelope and a header need: the address itself
/// (ASCII, `local@domain`, no spaces, no angle brackets) and an optional display name.
package struct EmailAddress: Sendable, Equatable {
    package var displayName: String?
    package var address: String

    package init(displayName: String? = nil, address: String) {
        self.displayName = displayName
        self.address = address
    }

    /// The domain part (`example.org`), used for `Message-ID`s.
    package var domain: String {
        address.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? address
    }

    /// Parses `addr` or `Name <addr>`; nil when malformed (no `@`, spaces, line breaks, non-ASCII address,
    /// more than 254 characters).
    package static func parse(_ text: String) -> EmailAddress? {
        guard !text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            var name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") { name = String(name.dropFirst().dropLast()) }
            guard isValidAddress(address), !name.contains("\"") else { return nil }
            return EmailAddress(displayName: name.isEmpty ? nil : name, address: address)
        }
        guard isValidAddress(trimmed) else { return nil }
        return EmailAddress(address: trimmed)
    }

    /// `local@domain`: printable ASCII without spaces, brackets or a second `@`; both parts non-empty.
    package static func isValidAddress(_ text: String) -> Bool {
        guard text.count <= 254, text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 }) else { return false }
        guard !text.contains(where: { "<>()[],;:\\\"".contains($0) }) else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
    }
}
