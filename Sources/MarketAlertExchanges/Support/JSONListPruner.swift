import Foundation
import MarketAlertKit

/// Cuts a large JSON ticker list down to the elements we watch, before typed decoding.
///
/// Bulk ticker endpoints answer with every market of the exchange (Binance: ~3,000 objects, ~1.5 MB);
/// `JSONDecoder` alone spends ~16 ms there even when it only reads `symbol`. This pruner makes one strict
/// pass over the bytes (it validates the whole document: brackets, strings, numbers, literals, trailing
/// garbage) and copies out a smaller document in which the list at `listPath` holds only the elements whose
/// `keyField` string is wanted. The smaller document is then decoded with ordinary `Decodable` types.
///
/// Pruning is only an optimisation: correctness never depends on it. Whatever the pruner cannot judge
/// (an element that is not an object, lacks `keyField`, or spells it with escapes) is kept for the decoder
/// to judge, and a document whose `listPath` does not lead to an array (an error envelope, for instance)
/// comes back unchanged.
package enum JSONListPruner {
    package struct Outcome {
        /// The document with the list cut down (or the original bytes when no list was found).
        package var document: Data
        /// Number of elements the list had before pruning; `nil` when `listPath` led to no array.
        package var elementCount: Int?
        /// Number of elements kept.
        package var keptCount: Int
    }

    /// Why the bytes are not JSON; `offset` counts bytes from the start of the body.
    package struct SyntaxError: Error, CustomStringConvertible {
        package var reason: String
        package var offset: Int
        package var description: String { "\(reason) at byte \(offset)" }
    }

    /// - Parameters:
    ///   - listPath: object keys leading from the root to the list; empty when the root is the list.
    ///   - keyField: the member of each element that identifies it (`symbol`, `instId`).
    ///   - keep: decides from that member's (unescaped) text whether the element is wanted.
    package static func prune(
        _ data: Data, listPath: [String], keyField: String, keep: (String) -> Bool
    ) throws(SyntaxError) -> Outcome {
        let result: Result<Outcome, SyntaxError> = data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw)
            do throws(SyntaxError) {
                let list = try scanner.scanDocument(
                    listPath: listPath.map { Array($0.utf8) }, keyField: Array(keyField.utf8), keep: keep)
                guard let list else {
                    return .success(Outcome(document: data, elementCount: nil, keptCount: 0))
                }
                var document = Data()
                document.reserveCapacity(list.start + (data.count - list.end) + list.kept.reduce(2) { $0 + $1.count + 1 })
                document.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[0..<list.start]))
                document.append(UInt8(ascii: "["))
                for (position, range) in list.kept.enumerated() {
                    if position > 0 { document.append(UInt8(ascii: ",")) }
                    document.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[range]))
                }
                document.append(UInt8(ascii: "]"))
                document.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[list.end..<raw.count]))
                return .success(Outcome(document: document, elementCount: list.count, keptCount: list.kept.count))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

extension JSONListPruner {
    /// Where the list was found and which element byte ranges to keep.
    fileprivate struct ListScan {
        var start: Int       // offset of `[`
        var end: Int         // offset just past `]`
        var count = 0
        var kept: [Range<Int>] = []
    }

    /// A strict, non-recursive JSON scanner over raw bytes. Nesting deeper than `maxDepth` is refused.
    fileprivate struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0
        static let maxDepth = 512

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        // MARK: Document walk

        mutating func scanDocument(
            listPath: [[UInt8]], keyField: [UInt8], keep: (String) -> Bool
        ) throws(SyntaxError) -> ListScan? {
            skipWhitespace()
            guard index < bytes.count else { throw SyntaxError(reason: "empty body", offset: 0) }
            let list = try walk(listPath[...], keyField: keyField, keep: keep)
            skipWhitespace()
            guard index == bytes.count else { throw unexpected("trailing characters after the JSON value") }
            return list
        }

        /// Scans the value at `index`, descending along `path`; returns the list scan if the path ends on an array.
        private mutating func walk(
            _ path: ArraySlice<[UInt8]>, keyField: [UInt8], keep: (String) -> Bool
        ) throws(SyntaxError) -> ListScan? {
            guard let component = path.first else {
                guard peek() == UInt8(ascii: "[") else {
                    try skipValue()
                    return nil
                }
                return try scanList(keyField: keyField, keep: keep)
            }
            guard peek() == UInt8(ascii: "{") else {
                try skipValue()
                return nil
            }
            index += 1
            var found: ListScan?
            var descended = false
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return nil
            }
            while true {
                skipWhitespace()
                let key = try scanString()
                try expectColon()
                skipWhitespace()
                if !descended, !key.escaped, equals(key.content, component) {
                    descended = true
                    found = try walk(path.dropFirst(), keyField: keyField, keep: keep)
                } else {
                    try skipValue()
                }
                if try endOfMember(closing: UInt8(ascii: "}")) { return found }
            }
        }

        /// Scans an array at `index` whose elements are (normally) flat objects, choosing which to keep.
        private mutating func scanList(keyField: [UInt8], keep: (String) -> Bool) throws(SyntaxError) -> ListScan {
            var list = ListScan(start: index, end: index)
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                index += 1
                list.end = index
                return list
            }
            while true {
                skipWhitespace()
                let elementStart = index
                let wanted: Bool
                if peek() == UInt8(ascii: "{") {
                    wanted = try scanElementObject(keyField: keyField, keep: keep)
                } else {
                    try skipValue()
                    wanted = true
                }
                list.count += 1
                if wanted { list.kept.append(elementStart..<index) }
                skipWhitespace()
                guard index < bytes.count else { throw truncated() }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: ",") { continue }
                if byte == UInt8(ascii: "]") {
                    list.end = index
                    return list
                }
                index -= 1
                throw unexpected("expected ',' or ']' in the list")
            }
        }

        /// Scans one element object; returns whether to keep it (kept unless its key field is a plain unwanted string).
        private mutating func scanElementObject(keyField: [UInt8], keep: (String) -> Bool) throws(SyntaxError) -> Bool {
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return true
            }
            var decision: Bool?
            while true {
                skipWhitespace()
                let key = try scanString()
                try expectColon()
                skipWhitespace()
                if decision == nil, !key.escaped, equals(key.content, keyField), peek() == UInt8(ascii: "\"") {
                    let value = try scanString()
                    decision = value.escaped ? true : keep(text(value.content))
                } else {
                    try skipValue()
                }
                if try endOfMember(closing: UInt8(ascii: "}")) { return decision ?? true }
            }
        }

        /// After a member or element: consumes `,` (returns false) or the closing bracket (returns true).
        private mutating func endOfMember(closing: UInt8) throws(SyntaxError) -> Bool {
            skipWhitespace()
            guard index < bytes.count else { throw truncated() }
            let byte = bytes[index]
            if byte == UInt8(ascii: ",") {
                index += 1
                return false
            }
            if byte == closing {
                index += 1
                return true
            }
            throw unexpected(closing == UInt8(ascii: "}") ? "expected ',' or '}' in an object" : "expected ',' or ']'")
        }

        // MARK: Values

        /// Skips one complete value of any kind, validating it, without recursion.
        mutating func skipValue() throws(SyntaxError) {
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
        mutating func scanString() throws(SyntaxError) -> (content: Range<Int>, escaped: Bool) {
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

        private mutating func scanNumber() throws(SyntaxError) {
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

        private mutating func scanLiteral(_ literal: StaticString) throws(SyntaxError) {
            let length = literal.utf8CodeUnitCount
            for offset in 0..<length {
                guard index + offset < bytes.count else { throw truncated() }
                guard bytes[index + offset] == literal.utf8Start[offset] else { throw unexpected("unexpected character") }
            }
            index += length
        }

        // MARK: Helpers

        private mutating func expectColon() throws(SyntaxError) {
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

        private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        private func equals(_ range: Range<Int>, _ expected: [UInt8]) -> Bool {
            guard range.count == expected.count else { return false }
            var offset = 0
            for position in range {
                if bytes[position] != expected[offset] { return false }
                offset += 1
            }
            return true
        }

        private func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        private func truncated() -> SyntaxError { SyntaxError(reason: "truncated JSON", offset: bytes.count) }

        private func unexpected(_ reason: String) -> SyntaxError { SyntaxError(reason: reason, offset: index) }

        @inline(__always) private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

        @inline(__always) private func isHexDigit(_ byte: UInt8) -> Bool {
            isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
        }
    }
}
