import Foundation

/// One recorded JSON object with scalar members (`{"symbol":"BTCUSDT","lastPrice":"67123.45",…}`), kept as
/// its raw member tokens in their recorded order, so that synthesized rows keep every field's real shape
/// (strings stay strings, numbers keep their digits, keys keep their order) and only the named members change.
package struct FlatJSONTemplate: Sendable {
    package struct Malformed: Error, CustomStringConvertible {
        package var description: String
    }

    /// `(key, raw JSON token)` in recorded order.
    package let members: [(key: String, token: String)]

    package init(_ text: String) throws(Malformed) {
        let bytes = Array(text.utf8)
        var index = 0
        func skipSpace() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 } }
        func scanString() throws(Malformed) -> Range<Int> {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Malformed(description: "expected a string at byte \(index)") }
            let start = index
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard index < bytes.count else { throw Malformed(description: "unterminated string") }
            index += 1
            return start..<index
        }
        func slice(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw Malformed(description: "expected an object") }
        index += 1
        var members: [(key: String, token: String)] = []
        while true {
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { break }
            let key = try scanString()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Malformed(description: "expected ':' at byte \(index)") }
            index += 1
            skipSpace()
            let token: Range<Int>
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                token = try scanString()
            } else {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}") {
                    guard bytes[index] != UInt8(ascii: "{"), bytes[index] != UInt8(ascii: "[") else {
                        throw Malformed(description: "nested value at byte \(index); only flat objects are templates")
                    }
                    index += 1
                }
                token = start..<index
            }
            members.append((String(slice(key).dropFirst().dropLast()), slice(token).trimmingTrailingSpace()))
            skipSpace()
            guard index < bytes.count else { throw Malformed(description: "unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { throw Malformed(description: "expected ',' or '}' at byte \(index)") }
            break
        }
        self.members = members
    }

    /// A template from a literal in this code base (a recorded row); a malformed one is a programming error
    /// caught by the kit tests.
    package init(constant text: String) {
        do {
            try self.init(text)
        } catch {
            preconditionFailure("malformed template: \(error)")
        }
    }

    /// The raw token of `key` (`"67123.45"` with its quotes, or `163248000.00000000`).
    package func token(_ key: String) -> String? { members.first { $0.key == key }?.token }

    /// The text of a string member without quotes, or a number's digits.
    package func text(_ key: String) -> String? {
        guard let token = token(key) else { return nil }
        return token.hasPrefix("\"") ? String(token.dropFirst().dropLast()) : token
    }

    /// The object with the given members replaced by raw JSON tokens (use `.quoted` for strings).
    /// Every replaced key must exist in the template, so a typo cannot silently add a field.
    package func render(_ replacements: [String: String]) -> String {
        precondition(replacements.keys.allSatisfy { key in members.contains { $0.key == key } }, "unknown template key in \(replacements.keys.sorted())")
        var out = "{"
        for (position, member) in members.enumerated() {
            if position > 0 { out += "," }
            out += "\"" + member.key + "\":" + (replacements[member.key] ?? member.token)
        }
        return out + "}"
    }
}

extension String {
    /// As a JSON string token (the values used here never need escaping).
    package var quoted: String { "\"" + self + "\"" }

    fileprivate func trimmingTrailingSpace() -> String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\n" || last == "\r" || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
