import Foundation
import MarketAlertCore
import Testing

@Suite struct PriceTests {
    @Test(arguments: ["67123.45000000", "1.4E-7", "163248000.00000000", "137728155832.9616000000000000", "0.1", "5"])
    func acceptsPositiveDecimalText(text: String) throws {
        let price = try #require(Price(text))
        #expect(price.exact == Decimal(string: text))
        #expect(price.value > 0)
    }

    @Test(arguments: ["0", "0.00000000", "-1", "-0.5", "NaN", "nan", "inf", "Infinity", "", " ", "1,000", "0x10", "12abc", "1e", ".", "+"])
    func rejectsZeroNegativeAndGarbage(text: String) {
        #expect(Price(text) == nil)
    }

    @Test func rejectsNonFiniteDoubles() {
        #expect(Price(Double.nan) == nil)
        #expect(Price(Double.infinity) == nil)
        #expect(Price(-1.0) == nil)
        #expect(Price(0.0) == nil)
        #expect(Price(1380.5)?.exact == Decimal(string: "1380.5"))
    }

    @Test func keepsExactDecimalDigits() throws {
        let price = try #require(Price("95006.70000001"))
        #expect(price.exact.description == "95006.70000001")
    }
}
