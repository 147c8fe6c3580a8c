/// Escaping for markup (HTML and SVG text and attributes, Slack's message text), done over Unicode scalars,
/// never `Character`s: a scalar that joins `<` or `>` into one grapheme with its neighbour (U+0301 after it,
/// U+0600 before it) must not carry it through unescaped.
package enum MarkupEscaping {
    /// `&`, `<`, `>`, `"`, `'` as entities and NUL as U+FFFD: HTML and SVG text and attribute values.
    package static func html(_ text: String) -> String { escape(text, quotes: true) }

    /// `&`, `<`, `>` as entities, nothing else: what Slack asks of message text.
    package static func slack(_ text: String) -> String { escape(text, quotes: false) }

    private static func escape(_ text: String, quotes: Bool) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"" where quotes: out.append(contentsOf: "&quot;".unicodeScalars)
            case "'" where quotes: out.append(contentsOf: "&#39;".unicodeScalars)
            case "\u{0}" where quotes: out.append("\u{FFFD}")
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
