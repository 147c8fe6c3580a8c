/// One SMTP reply (RFC 5321 §4.2): a three-digit code and its text lines. A multi-line reply repeats the
/// code on every line with `-` after it, and ends with the line that has a space (or nothing) after it.
package struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    package var code: Int
    package var lines: [String]

    package init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines
    }

    /// 2xx.
    package var isPositive: Bool { (200..<300).contains(code) }
    /// 4xx: try again later.
    package var isTransient: Bool { (400..<500).contains(code) }
    /// 5xx: the server refuses for good.
    package var isPermanent: Bool { (500..<600).contains(code) }

    /// The code and the text, lines joined by a space, at most 300 characters (for logs and errors).
    package var description: String {
        let text = lines.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        let clipped = text.count > 300 ? String(text.prefix(299)) + "…" : text
        return clipped.isEmpty ? "\(code)" : "\(code) \(clipped)"
    }

    /// EHLO's extension keywords, upper-cased, with their parameters: `["AUTH": "PLAIN LOGIN", "STARTTLS": ""]`.
    /// The first line is the server's greeting, not an extension.
    package var extensions: [String: String] {
        var result: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard let keyword = parts.first, !keyword.isEmpty else { continue }
            result[keyword.uppercased()] = parts.count > 1 ? String(parts[1]) : ""
        }
        return result
    }
}

/// Collects lines into replies. Rejects what is not a reply line (RFC 5321 §4.2: three digits, then `-`,
/// a space or the end) and a multi-line reply whose code changes or that goes on for more than `maxLines`.
package struct SMTPReplyParser: Sendable {
    package static let maxLines = 100
    private var code: Int?
    private var lines: [String] = []

    package init() {}

    package enum Failure: Error, Equatable, CustomStringConvertible {
        case notAReply(String)
        case tooLong

        package var description: String {
            switch self {
            case .notAReply(let line): "not an SMTP reply line: \"\(line.prefix(80))\""
            case .tooLong: "a multi-line reply of more than \(SMTPReplyParser.maxLines) lines"
            }
        }
    }

    /// Feeds one line (without CRLF); returns the reply it completes, or nil while one continues.
    package mutating func feed(_ line: String) throws(Failure) -> SMTPReply? {
        let scalars = Array(line.unicodeScalars.prefix(4))
        guard scalars.count >= 3, scalars[0...2].allSatisfy({ $0.properties.numericType == .decimal && $0.isASCII }),
              let value = Int(String(String.UnicodeScalarView(scalars[0...2])))
        else { throw .notAReply(line) }
        let separator = scalars.count > 3 ? scalars[3] : " "
        guard separator == "-" || separator == " " else { throw .notAReply(line) }
        if let code, code != value { throw .notAReply(line) }
        code = value
        lines.append(String(line.dropFirst(4)))
        if lines.count > Self.maxLines { throw .tooLong }
        guard separator == " " else { return nil }
        let reply = SMTPReply(code: value, lines: lines)
        code = nil
        lines = []
        return reply
    }

    /// Whether a reply has begun and not ended.
    package var isMidReply: Bool { code != nil }
}
