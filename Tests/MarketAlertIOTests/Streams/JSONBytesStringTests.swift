@testable import MarketAlertIO
import Testing

/// `JSONBytes.stringEnd` reads eight bytes at a time; it must find exactly what a byte-at-a-time scan finds
/// (the closing quote, or nil at a control byte or the end), wherever the special byte falls in a word.
@Suite struct JSONBytesStringTests {
    /// The specification: the byte loop the word-at-a-time scan replaced.
    static func reference(_ bytes: [UInt8], from index: Int) -> Int? {
        var cursor = index
        while cursor < bytes.count {
            switch bytes[cursor] {
            case UInt8(ascii: "\""): return cursor
            case UInt8(ascii: "\\"): cursor += 2
            case 0..<0x20: return nil
            default: cursor += 1
            }
        }
        return nil
    }

    static func scan(_ bytes: [UInt8], from index: Int) -> Int? {
        bytes.withUnsafeBytes { JSONBytes($0).stringEnd(from: index) }
    }

    @Test func findsTheClosingQuoteAtEveryOffsetOfAWord() {
        for length in 0..<40 {
            let text = Array(repeating: UInt8(ascii: "a"), count: length) + Array(#"","x":1}"#.utf8)
            #expect(Self.scan(text, from: 0) == length, "string of \(length) bytes")
        }
    }

    @Test func skipsEscapedQuotesAndBackslashes() {
        let text = Array(#"BTC\"-\\USDT\u0041 long enough to fill words \" end"tail"#.utf8)
        #expect(Self.scan(text, from: 0) == Self.reference(text, from: 0))
        #expect(Self.scan(text, from: 0) == text.lastIndex(of: UInt8(ascii: "\"")))
    }

    @Test func refusesAControlByteAndAnUnterminatedString() {
        for position in 0..<20 {
            var text = Array(repeating: UInt8(ascii: "z"), count: 24) + [UInt8(ascii: "\"")]
            text[position] = 0x0A
            #expect(Self.scan(text, from: 0) == nil, "newline at \(position)")
        }
        #expect(Self.scan(Array("no closing quote at all, long".utf8), from: 0) == nil)
        #expect(Self.scan(Array(#"ends in a backslash \"#.utf8), from: 0) == nil)
    }

    @Test func bytesAboveASCIIAreText() {
        let text = Array("시세 行情 €€€€".utf8) + [UInt8(ascii: "\"")] + Array("tail".utf8)
        #expect(Self.scan(text, from: 0) == text.count - 5)
    }

    /// Random strings over the bytes that matter (quote, backslash, control, high, plain) against the
    /// specification, from every start offset.
    @Test func agreesWithTheByteLoopOnRandomInput() {
        var generator = SplitMix64(seed: 0x5EED_0F_5C4A)
        let alphabet: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x7F, 0x80, 0xC3, 0xFF, 0x41, 0x61, 0x30, 0x21, 0x5B]
        for _ in 0..<3000 {
            let count = Int(generator.next() % 48)
            let bytes = (0..<count).map { _ in
                generator.next() % 3 == 0 ? alphabet[Int(generator.next() % UInt64(alphabet.count))] : UInt8(ascii: "m")
            }
            for start in 0...count {
                #expect(Self.scan(bytes, from: start) == Self.reference(bytes, from: start), "\(bytes) from \(start)")
            }
        }
    }
}
