import MarketAlertKit
import MarketAlertStorage
/// Journal field names as journald accepts them (`journal_field_valid` in systemd): 1–64 characters of
/// `A–Z`, `0–9` and `_`, not starting with `_` (reserved for trusted fields) nor with a digit.
/// journald silently drops fields with other names, so every name we did not write ourselves goes
/// through ``sanitize(_:)``.
package enum JournalFieldName {
    package static let maxLength = 64

    /// A valid field name derived from `raw`: ASCII letters upper-cased, every other character mapped
    /// to `_`, leading underscores stripped, a leading digit prefixed with `F`, capped at 64 characters.
    /// Returns `FIELD` when nothing usable remains (e.g. `"__"` or `"日本"`).
    ///
    /// `sl-service` → `SL_SERVICE`, `hb.request.id` → `HB_REQUEST_ID`, `_secret` → `SECRET`.
    package static func sanitize(_ raw: String) -> String {
        var bytes: [UInt8] = []
        for scalar in raw.unicodeScalars {
            switch scalar.value {
            case 0x61...0x7A: bytes.append(UInt8(scalar.value - 0x20))  // a–z → A–Z
            case 0x41...0x5A, 0x30...0x39, 0x5F: bytes.append(UInt8(scalar.value))
            default: bytes.append(UInt8(ascii: "_"))
            }
        }
        let trimmed = bytes.drop { $0 == UInt8(ascii: "_") }
        guard let first = trimmed.first else { return "FIELD" }
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let name = (digits.contains(first) ? [UInt8(ascii: "F")] : []) + trimmed
        return String(decoding: name.prefix(maxLength), as: UTF8.self)
    }

    /// Sanitizes `key` and prefixes it (e.g. `MARKETALERTD_`), keeping the whole name within 64 characters.
    /// `prefix` must itself be a valid name start.
    package static func prefixed(_ prefix: String, _ key: String) -> String {
        String((prefix + sanitize(key)).prefix(maxLength))
    }

    /// Whether journald accepts `name` as a field name from a client.
    package static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= maxLength else { return false }
        if first == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }
}
