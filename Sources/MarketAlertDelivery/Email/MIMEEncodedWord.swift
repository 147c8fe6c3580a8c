import Foundation

/// RFC 2047 encoded-words for header text that is not plain ASCII: `=?UTF-8?B?…?=`, each word at most 75
/// characters and cut only between characters (a multi-byte character never splits across words). Used for
/// an email's Subject and display names, and for ntfy's Title header (ntfy decodes encoded-words).
package enum MIMEEncodedWord {
    /// Longest encoded-word RFC 2047 allows.
    static let maxWordLength = 75
    /// `=?UTF-8?B?` + `?=`.
    private static let overhead = 12

    /// `text` unchanged when it is printable ASCII; otherwise encoded-words separated by `separator`
    /// (`"\r\n "` folds an email header; `" "` keeps an HTTP header on one line).
    package static func encodeIfNeeded(_ text: String, separator: String = " ") -> String {
        let printable = text.unicodeScalars.allSatisfy { $0.value >= 32 && $0.value < 127 }
        if printable && !text.contains("=?") { return text }
        return encode(text).joined(separator: separator)
    }

    /// The encoded-words of `text`, in order.
    package static func encode(_ text: String) -> [String] {
        // Base64 of n bytes is 4 * ceil(n / 3) characters; 45 bytes make 60, which fits 75 with the overhead.
        let maxBytes = (maxWordLength - overhead) / 4 * 3
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let clean: Character = character == "\r" || character == "\n" ? " " : character
            let bytes = Array(String(clean).utf8)
            if !chunk.isEmpty, chunk.count + bytes.count > maxBytes {
                words.append(word(chunk))
                chunk = []
            }
            chunk.append(contentsOf: bytes.prefix(maxBytes))
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }
}
