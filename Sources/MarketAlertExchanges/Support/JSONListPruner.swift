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
        // The pruner's types, by their short names in the scanner's extensions (`+Walk`, `+Values`).
        typealias SyntaxError = JSONListPruner.SyntaxError
        typealias ListScan = JSONListPruner.ListScan

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        // MARK: Helpers

        mutating func expectColon() throws(SyntaxError) {
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

        func truncated() -> SyntaxError { SyntaxError(reason: "truncated JSON", offset: bytes.count) }

        func unexpected(_ reason: String) -> SyntaxError { SyntaxError(reason: reason, offset: index) }

        @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

        @inline(__always) func isHexDigit(_ byte: UInt8) -> Bool {
            isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
        }
    }
}
