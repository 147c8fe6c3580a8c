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
    struct ListScan {
        var start: Int       // offset of `[`
        var end: Int         // offset just past `]`
        var count = 0
        var kept: [Range<Int>] = []
    }

    /// A strict, non-recursive JSON scanner over raw bytes. Nesting deeper than `maxDepth` is refused.
    struct Scanner {
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
    }
}
