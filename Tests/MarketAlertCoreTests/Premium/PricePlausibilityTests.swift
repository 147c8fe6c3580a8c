import Foundation
import MarketAlertCore
import Testing

/// Prices outside what a market can have, and unusual forms of digits, are not prices.
@Suite struct PricePlausibilityTests {
    @Test(arguments: ["1e12", "1E12", "1000000000000", "1e39", "1e308", "1e-12", "0.000000000001", "1e-13", "1e-300"])
    func outOfRangeIsRejected(text: String) {
        #expect(Price(text) == nil)
    }

    @Test(arguments: ["999999999999.99", "1.1e-12", "0.00000000001", "140000000", "1.4E-7"])
    func theEdgesOfTheRangeAreAccepted(text: String) {
        #expect(Price(text) != nil)
    }

    @Test func numbersOutOfRangeAreRejectedWhateverTheirType() {
        #expect(Price(Decimal(string: "1e39")!) == nil)
        #expect(Price(1e300) == nil)
        #expect(Price(5e-13) == nil)
        #expect(Price(1380.5) != nil)
    }

    /// Padded, full-width, other scripts' digits, thousands separators, signs and hex are not decimal text.
    @Test(arguments: [
        " 100", "100 ", "\t100", "100\n", "\u{00A0}100", "１００", "１00", "٣٠٠", "१००", "1 000", "1_000", "1,000.5",
        "+-1", "--1", "0x1p3", "1e", "1e+", ".e1", "1.2.3", "∞", "100\u{200E}", "\u{202E}001",
    ])
    func unusualFormsAreRejected(text: String) {
        #expect(Price(text) == nil, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }
}
