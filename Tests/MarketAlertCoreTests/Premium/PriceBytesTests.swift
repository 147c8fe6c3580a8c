import Foundation
import Testing
@testable import MarketAlertCore

/// `Price(bytes:)` (the stream decoders' parser) must accept exactly what `Price(_: String)` accepts and give
/// the same exact and double values.
@Suite struct PriceBytesTests {
    static let samples = [
        "25.35190000", "30236", "127.0", "0.00000014", "67079.6", "163248000.00000000", "1.4E-7", "1.4e-7", "2e3",
        "0.5", ".5", "5.", "+5", "0001.2300", "99999999999999999999999.5", "0.000000000000000000000000001",
        "12345678901234567890", "1234567890123456789", "9007199254740993", "1e22", "1e23", "1e-22", "3.14159265358979323846",
        // rejected:
        "0", "0.000", "-1", "-0.5", "", "NaN", "nan", "inf", "Infinity", "1e", "1e+", ".", "-", "+", "1..2", "1.2.3",
        "0x10", "1,000", " 1", "1 ", "1e-400", "1e400", "12a", "--1",
    ]

    @Test(arguments: samples)
    func agreesWithTheStringParser(_ text: String) {
        let fromBytes = Array(text.utf8).withUnsafeBytes { Price(bytes: $0) }
        let fromString = Price(text)
        #expect(fromBytes?.exact == fromString?.exact, "\(text)")
        #expect(fromBytes?.value == fromString?.value, "\(text)")
        #expect(fromBytes?.description == fromString?.description, "\(text)")
    }

    @Test func randomDecimalTextAgrees() {
        var generator = SplitMix(seed: 42)
        for _ in 0..<20_000 {
            let integer = generator.next() % 1_000_000_000
            let fractionDigits = Int(generator.next() % 12)
            var text = String(integer)
            if fractionDigits > 0 {
                var fraction = ""
                for _ in 0..<fractionDigits { fraction += String(generator.next() % 10) }
                text += "." + fraction
            }
            let fromBytes = Array(text.utf8).withUnsafeBytes { Price(bytes: $0) }
            let fromString = Price(text)
            #expect(fromBytes?.exact == fromString?.exact, "\(text)")
            #expect(fromBytes?.value == fromString?.value, "\(text)")
        }
    }

    @Test func tooLongTextIsRejected() {
        let text = "1." + String(repeating: "1", count: 70)
        #expect(Array(text.utf8).withUnsafeBytes { Price(bytes: $0) } == nil)
    }
}

private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
