import Foundation

/// The scanner's values and helpers: one JSON value skipped or read, validated, without recursion.
extension JSONListPruner.Scanner {
    // MARK: Values

    /// Skips one complete value of any kind, validating it, without recursion.
    mutating func skipValue() throws(JSONListPruner.SyntaxError) {
        var stack: [Bool] = []  // true = object, false = array
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw truncated() }
            var completed = true
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "}") {
                    index += 1
                } else {
                    guard stack.count < Self.maxDepth else { throw unexpected("nesting too deep") }
                    stack.append(true)
                    skipWhitespace()
                    _ = try scanString()
                    try expectColon()
                    completed = false
                }
            case UInt8(ascii: "["):
                index += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "]") {
                    index += 1
                } else {
                    guard stack.count < Self.maxDepth else { throw unexpected("nesting too deep") }
                    stack.append(false)
                    completed = false
                }
            case UInt8(ascii: "\""):
                _ = try scanString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try scanNumber()
            case UInt8(ascii: "t"):
                try scanLiteral("true")
            case UInt8(ascii: "f"):
                try scanLiteral("false")
            case UInt8(ascii: "n"):
                try scanLiteral("null")
            default:
                throw unexpected(index == 0 ? "not JSON" : "unexpected character")
            }
            guard completed else { continue }
            // A value is complete: close containers until one continues with another member or element.
            while let isObject = stack.last {
                skipWhitespace()
                guard index < bytes.count else { throw truncated() }
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    if isObject {
                        skipWhitespace()
                        _ = try scanString()
                        try expectColon()
                    }
                    break
                }
                if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    stack.removeLast()
                    continue
                }
                throw unexpected(isObject ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array")
            }
            if stack.isEmpty { return }
        }
    }

    /// Scans a string at `index` (which must be `"`); returns the byte range between the quotes.
    mutating func scanString() throws(JSONListPruner.SyntaxError) -> (content: Range<Int>, escaped: Bool) {
        guard index < bytes.count else { throw truncated() }
        guard bytes[index] == UInt8(ascii: "\"") else { throw unexpected("expected a string") }
        index += 1
        let start = index
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (start..<(index - 1), escaped)
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                index += 1
                guard index < bytes.count else { throw truncated() }
                switch bytes[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    index += 1
                    for _ in 0..<4 {
                        guard index < bytes.count else { throw truncated() }
                        guard isHexDigit(bytes[index]) else { throw unexpected("bad \\u escape") }
                        index += 1
                    }
                default:
                    throw unexpected("bad escape in a string")
                }
                continue
            }
            if byte < 0x20 { throw unexpected("control character in a string") }
            index += 1
        }
        throw truncated()
    }

    private mutating func scanNumber() throws(JSONListPruner.SyntaxError) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw truncated() }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(bytes[index]) {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        } else {
            throw unexpected("bad number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count else { throw truncated() }
            guard isDigit(bytes[index]) else { throw unexpected("bad number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { throw truncated() }
            guard isDigit(bytes[index]) else { throw unexpected("bad number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
    }

    private mutating func scanLiteral(_ literal: StaticString) throws(JSONListPruner.SyntaxError) {
        let length = literal.utf8CodeUnitCount
        for offset in 0..<length {
            guard index + offset < bytes.count else { throw truncated() }
            guard bytes[index + offset] == literal.utf8Start[offset] else { throw unexpected("unexpected character") }
        }
        index += length
    }

    // MARK: Helpers

    mutating func expectColon() throws(JSONListPruner.SyntaxError) {
        skipWhitespace()
        guard index < bytes.count else { throw truncated() }
        guard bytes[index] == UInt8(ascii: ":") else { throw unexpected("expected ':' after a key") }
        index += 1
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    func equals(_ range: Range<Int>, _ expected: [UInt8]) -> Bool {
        guard range.count == expected.count else { return false }
        var offset = 0
        for position in range {
            if bytes[position] != expected[offset] { return false }
            offset += 1
        }
        return true
    }

    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    func truncated() -> JSONListPruner.SyntaxError { JSONListPruner.SyntaxError(reason: "truncated JSON", offset: bytes.count) }

    func unexpected(_ reason: String) -> JSONListPruner.SyntaxError { JSONListPruner.SyntaxError(reason: reason, offset: index) }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    @inline(__always) func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
}
