import Foundation
import MarketAlertCore
import Testing

@Suite("Exact numbers")
struct NumberTextTests {
    static func decimal(_ text: String) throws -> Decimal { try #require(Decimal(string: text)) }

    @Test(arguments: [
        (3.8961040000000002, "3.896104"), (0.11000000000000001, "0.11"), (0.06999999999999999, "0.07"),
        (0.1 + 0.2, "0.3"), (3.0 / 77.0 * 100, "3.896104"), (-1.5, "-1.5"), (1e-9, "0"), (12345.6789012345, "12345.678901"),
    ])
    func percentagesAreShortestAtSixDecimals(value: Double, expected: String) {
        #expect(NumberText.pct(value).description == expected)
        // Back to a double and out again: the same text (what a JSON reader sees).
        #expect(String(NumberText.double(NumberText.pct(value))) == (expected.contains(".") ? expected : expected + ".0"))
    }

    @Test func theDecimalToDoubleConversionIsTheNearestDouble() throws {
        // `NSDecimalNumber.doubleValue` gives 3.8961040000000002 here; the nearest double prints as 3.896104.
        #expect(NumberText.double(try Self.decimal("3.896104")) == 3.896104)
        #expect(try (Self.decimal("0.0011") * 100).doubleValue == 0.11)
        #expect(try Price(Self.decimal("0.07"))?.value == 0.07)
    }

    @Test func publishedPricesKeepTheirDigitsGroupedToTheCurrency() throws {
        #expect(NumberText.money(try Self.decimal("139500000.0"), currency: "KRW") == "139,500,000")
        #expect(NumberText.money(try Self.decimal("95006.70000000"), currency: "USDT") == "95,006.70")
        #expect(NumberText.money(try Self.decimal("95006.705"), currency: "USDT") == "95,006.705")
        #expect(NumberText.money(try Self.decimal("0.00001234"), currency: "USDT") == "0.00001234")
        #expect(NumberText.money(try Self.decimal("4.5"), currency: "KRW") == "4.5")
        #expect(NumberText.exact(try Self.decimal("1394.70")) == "1,394.7")
        #expect(NumberText.pctText(1234.5) == "1,234.5" && NumberText.pctText(3) == "3")
    }

    @Test func computedReferencePricesFollowTheirCurrency() {
        #expect(CurrencyDigits.priceRef(100_021.50960063096, currency: "USD").description == "100021.51")
        #expect(CurrencyDigits.priceRef(139_512_345.6, currency: "KRW").description == "139512346")
        #expect(CurrencyDigits.priceRef(1.2345678, currency: "USD").description == "1.23457")
        #expect(CurrencyDigits.priceRef(0.0000123456789, currency: "USD").description == "0.0000123457")
        #expect(CurrencyDigits.priceRef(0.5, currency: "KRW").description == "0.5")
        #expect(CurrencyDigits.priceRef(.nan, currency: "USD") == 0)
        #expect(CurrencyDigits.minorUnits("krw") == 0 && CurrencyDigits.minorUnits("USDT") == 2 && CurrencyDigits.minorUnits("KWD") == 3)
    }

    @Test func percentFieldsAreWrittenRoundedAndAnAbsentChangeIsLeftOut() throws {
        let at = Date(timeIntervalSince1970: 1_773_110_820)
        var fx = FXDetail(pair: "USD/KRW", rate: try Self.decimal("1394.70"), provider: "dunamu", at: at, changePct: 0.11000000000000001)
        let encoder = AlertEvent.makeEncoder()
        let json = String(decoding: try encoder.encode(fx), as: UTF8.self)
        #expect(json == #"{"at":"2026-03-10T02:47:00Z","change_pct":0.11,"pair":"USD/KRW","provider":"dunamu","rate":1394.7}"#)
        fx.changePct = nil
        let without = String(decoding: try encoder.encode(fx), as: UTF8.self)
        #expect(!without.contains("change_pct"))
        #expect(try AlertEvent.makeDecoder().decode(FXDetail.self, from: Data(without.utf8)) == fx)
        let decoded = try AlertEvent.makeDecoder().decode(FXDetail.self, from: Data(json.utf8))
        #expect(decoded.changePct == 0.11)
    }
}
