import MarketAlertCore
import MarketAlertKit

/// Byte-level JSON walking for stream frames: no `String`, no dictionary, no allocation. A decoder walks
/// the members of an object (`members(ofObjectAt:)`), compares keys against static text (`is(_:_:)`) and
/// reads the few values it needs; everything else is skipped structurally (strings with escapes, nested
/// objects and arrays). Malformed input makes the walk return nil, never crash: the frame is dropped.
package struct JSONBytes {
    package enum Kind: Equatable { case string, number, object, array, literal }

    /// A value's bytes: for a string the text between the quotes (escapes left as they are), otherwise the
    /// whole token or structure.
    package struct Value {
        package var start: Int
        package var end: Int
        package var kind: Kind
    }

    package let bytes: UnsafeRawBufferPointer

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The first byte that is not whitespace at or after `index`.
    package func skipSpace(_ index: Int) -> Int {
        var index = index
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return index
            }
        }
        return index
    }

    /// The top-level value: the index of its first byte (nil if the frame is blank).
    package var root: Int? {
        let index = skipSpace(0)
        return index < bytes.count ? index : nil
    }

    /// Calls `body(keyStart, keyEnd, value)` for each member of the object whose `{` is at `index`; `body`
    /// returns false to stop early. Returns the index after the closing `}`, or nil if malformed.
    @discardableResult
    package func members(ofObjectAt index: Int, depth: Int = 0, _ body: (Int, Int, Value) -> Bool) -> Int? {
        guard depth < Self.maximumDepth, index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        var cursor = skipSpace(index + 1)
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "}") { return cursor + 1 }
        while cursor < bytes.count {
            guard bytes[cursor] == UInt8(ascii: "\""), let keyEnd = stringEnd(from: cursor + 1) else { return nil }
            let keyStart = cursor + 1
            cursor = skipSpace(keyEnd + 1)
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else { return nil }
            cursor = skipSpace(cursor + 1)
            guard let (value, next) = value(at: cursor, depth: depth) else { return nil }
            if !body(keyStart, keyEnd, value) { return next }
            cursor = skipSpace(next)
            guard cursor < bytes.count else { return nil }
            if bytes[cursor] == UInt8(ascii: "}") { return cursor + 1 }
            guard bytes[cursor] == UInt8(ascii: ",") else { return nil }
            cursor = skipSpace(cursor + 1)
        }
        return nil
    }

    /// Calls `body` for each element of the array whose `[` is at `index`; same contract as `members`.
    @discardableResult
    package func elements(ofArrayAt index: Int, depth: Int = 0, _ body: (Value) -> Bool) -> Int? {
        guard depth < Self.maximumDepth, index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        var cursor = skipSpace(index + 1)
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "]") { return cursor + 1 }
        while cursor < bytes.count {
            guard let (value, next) = value(at: cursor, depth: depth) else { return nil }
            if !body(value) { return next }
            cursor = skipSpace(next)
            guard cursor < bytes.count else { return nil }
            if bytes[cursor] == UInt8(ascii: "]") { return cursor + 1 }
            guard bytes[cursor] == UInt8(ascii: ",") else { return nil }
            cursor = skipSpace(cursor + 1)
        }
        return nil
    }

    /// Nesting deeper than this is malformed for any exchange frame (and would cost stack).
    package static let maximumDepth = 32

    /// The value starting at `index` (inside `depth` enclosing structures) and the index after it.
    package func value(at index: Int, depth: Int = 0) -> (Value, Int)? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            guard let end = stringEnd(from: index + 1) else { return nil }
            return (Value(start: index + 1, end: end, kind: .string), end + 1)
        case UInt8(ascii: "{"):
            guard let end = members(ofObjectAt: index, depth: depth + 1, { _, _, _ in true }) else { return nil }
            return (Value(start: index, end: end, kind: .object), end)
        case UInt8(ascii: "["):
            guard let end = elements(ofArrayAt: index, depth: depth + 1, { _ in true }) else { return nil }
            return (Value(start: index, end: end, kind: .array), end)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            var end = index + 1
            while end < bytes.count, Self.isNumberByte(bytes[end]) { end += 1 }
            return (Value(start: index, end: end, kind: .number), end)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            var end = index + 1
            while end < bytes.count, bytes[end] >= UInt8(ascii: "a"), bytes[end] <= UInt8(ascii: "z") { end += 1 }
            guard matches(index, end, "true") || matches(index, end, "false") || matches(index, end, "null") else { return nil }
            return (Value(start: index, end: end, kind: .literal), end)
        default:
            return nil
        }
    }

    /// The index of the closing quote of a string whose text starts at `index`.
    ///
    /// Eight bytes at a time: strings are most of a frame's bytes, and the byte-at-a-time loop this replaces
    /// was a tenth of the streaming daemon's instructions (callgrind).
    package func stringEnd(from index: Int) -> Int? {
        var cursor = index
        while cursor < bytes.count {
            if bytes.count - cursor >= 8 {
                let flags = Self.specialBytes(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: cursor, as: UInt64.self)))
                if flags == 0 {
                    cursor += 8
                    continue
                }
                // The lowest flag is exact (a false flag only follows a true one): skip to that byte.
                cursor += flags.trailingZeroBitCount >> 3
            }
            switch bytes[cursor] {
            case UInt8(ascii: "\""): return cursor
            case UInt8(ascii: "\\"): cursor += 2
            case 0..<0x20: return nil
            default: cursor += 1
            }
        }
        return nil
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `word` (first byte lowest) that may be a quote, a backslash or below
    /// 0x20: the classic zero-byte tests, `(x - n·ones) & ~x` for a byte below n (n ≤ 0x80). Exact up to the
    /// first such byte; bytes after it may be flagged falsely.
    @inline(__always)
    package static func specialBytes(_ word: UInt64) -> UInt64 {
        let quote = word ^ (UInt64(UInt8(ascii: "\"")) &* ones)
        let backslash = word ^ (UInt64(UInt8(ascii: "\\")) &* ones)
        let control = (word &- 0x20 &* ones) & ~word
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        return (control | zeroQuote | zeroBackslash) & highs
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"),
             UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }

    // MARK: Reading values

    /// Whether bytes `start..<end` are exactly `text`.
    package func matches(_ start: Int, _ end: Int, _ text: StaticString) -> Bool {
        guard end - start == text.utf8CodeUnitCount, end <= bytes.count, let base = bytes.baseAddress else { return false }
        return memcmp(base + start, text.utf8Start, text.utf8CodeUnitCount) == 0
    }

    /// Whether the string `value` starts with `prefix`.
    package func hasPrefix(_ value: Value, _ prefix: StaticString) -> Bool {
        value.kind == .string && value.end - value.start >= prefix.utf8CodeUnitCount
            && matches(value.start, value.start + prefix.utf8CodeUnitCount, prefix)
    }

    /// Whether `value` is the string `text`.
    package func isString(_ value: Value, _ text: StaticString) -> Bool {
        value.kind == .string && matches(value.start, value.end, text)
    }

    /// The bytes of `value` (a string's text, or a number's token).
    package func slice(_ value: Value) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[value.start..<value.end])
    }

    /// A price from a JSON string or number; nil for anything else or an unusable number.
    package func price(_ value: Value) -> Price? {
        guard value.kind == .string || value.kind == .number else { return nil }
        return Price(bytes: slice(value))
    }

    /// A non-negative quantity from a JSON string or number (an order-book size; 0 is an empty level), or nil.
    package func quantity(_ value: Value) -> Double? {
        guard value.kind == .string || value.kind == .number else { return nil }
        return QuantityBytes.value(slice(value))
    }

    /// A non-negative integer (a string of digits or a JSON number without fraction), or nil.
    package func integer(_ value: Value) -> Int64? {
        guard value.kind == .string || value.kind == .number, value.end > value.start, value.end - value.start <= 18 else { return nil }
        var result: Int64 = 0
        for index in value.start..<value.end {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = result * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return result
    }

    /// `true` or `false`, or nil.
    package func bool(_ value: Value) -> Bool? {
        guard value.kind == .literal else { return nil }
        if matches(value.start, value.end, "true") { return true }
        if matches(value.start, value.end, "false") { return false }
        return nil
    }

    /// Whether `value` is the literal `null`.
    package func isNull(_ value: Value) -> Bool {
        value.kind == .literal && matches(value.start, value.end, "null")
    }

    /// The text of a string `value` written without escapes (a market id, a key), or nil for anything else;
    /// an id a reader cannot compare byte for byte is left to a careful path.
    package func plainString(_ value: Value) -> String? {
        guard value.kind == .string else { return nil }
        let text = slice(value)
        guard !text.contains(UInt8(ascii: "\\")) else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// A value's text as a `String` (only for rare messages: acks and errors, never market data).
    package func string(_ value: Value) -> String {
        String(decoding: slice(value), as: UTF8.self)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
