import Foundation

/// Text cells of a published table (TWSE `publicForm`) made safe before they go into keys, summaries, logs
/// and chat messages: codes are validated (a key must never hold a newline, a NUL or a bidi override), and
/// free text is cleaned and capped.
package enum PublishedText {
    /// Longest offering name kept (characters); a longer one is cut with `…`.
    package static let nameLimit = 200
    /// Longest other text cell kept (market, draw note, date text quoted in messages).
    package static let cellLimit = 80

    /// A plausible security code: 2 to 12 ASCII letters or digits (`7795`, `00940`, `A151DA`, `2887E`).
    package static func isPlausibleCode(_ code: String) -> Bool {
        (2...12).contains(code.utf8.count)
            && code.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// `text` without control characters, format characters (bidi marks, embeddings, overrides and isolates,
    /// zero-width space, BOM, soft hyphen; only the zero-width joiner and non-joiner are kept), line/paragraph separators, private-use, unassigned or surrogate code points; whitespace
    /// runs (tabs, newlines) become one space; trimmed; at most `limit` characters (grapheme clusters), the
    /// last one `…` when cut.
    package static func sanitized(_ text: String, limit: Int = nameLimit) -> String {
        var cleaned = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !cleaned.isEmpty
                continue
            }
            switch scalar.properties.generalCategory {
            case .format where scalar == "\u{200D}" || scalar == "\u{200C}":
                // Zero-width (non-)joiners hold emoji sequences and some scripts together; they reorder nothing.
                if pendingSpace { cleaned.append(" ") }
                pendingSpace = false
                cleaned.append(scalar)
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
                continue
            default:
                if pendingSpace { cleaned.append(" ") }
                pendingSpace = false
                cleaned.append(scalar)
            }
        }
        return capped(String(cleaned), limit: limit)
    }

    /// At most `limit` characters, cut at a grapheme boundary with `…` as the last one.
    package static func capped(_ text: String, limit: Int) -> String {
        guard limit > 0, text.count > limit else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }

    /// A cell quoted for an issue message, every non-printable-ASCII scalar escaped (`"77\u{202E}95"`), at
    /// most 40 scalars, so a hostile cell cannot reorder or split the log line it is reported in.
    package static func visible(_ text: String) -> String {
        var result = "\""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == 40 {
                result += "…"
                break
            }
            if scalar.isASCII, scalar.value >= 0x20, scalar.value < 0x7F, scalar != "\"", scalar != "\\" {
                result.unicodeScalars.append(scalar)
            } else {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return result + "\""
    }
}
