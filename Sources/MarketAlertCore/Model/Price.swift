import Foundation

/// A strictly positive, finite price within the range a market can have.
///
/// The exact decimal text from the exchange is kept for display and for JSON output; `value` is the
/// same number as a `Double`, used for the premium ratio (a percentage needs no more than 15 digits).
/// The only ways to make one reject zero, negative, NaN, infinite and unparsable input, and anything outside
/// `plausibleRange` (1e-12 < price < 1e12: BTC in KRW is about 1.4e8 and the cheapest listed tokens about
/// 1e-9, so a value beyond that is a garbled field, not a price), so a `Price` in hand is always usable.
package struct Price: Sendable, Hashable, CustomStringConvertible {
    package let exact: Decimal
    package let value: Double

    /// Parses decimal text such as `"67123.45000000"`, `"1.4E-7"` or `"163248000.00000000"`.
    package init?(_ text: Substring) {
        guard let scanned = DecimalText.parse(text) else { return nil }
        self.init(exact: scanned.decimal, value: scanned.double)
    }

    package init?(_ text: String) { self.init(Substring(text)) }

    package init?(_ decimal: Decimal) {
        guard decimal.isFinite, !decimal.isNaN, decimal > 0 else { return nil }
        let double = NumberText.double(decimal)
        self.init(exact: decimal, value: double)
    }

    /// The exact decimal is the double's shortest round-trip text (`String(double)`), read as `Decimal(string:)`
    /// reads it; the text is written on the stack (`Price+Double`), not into a `String`, so nothing allocates.
    package init?(_ double: Double) {
        guard double.isFinite, double > 0 else { return nil }
        if let exact = DoubleText.decimal(double) {
            self.init(exact: exact, value: double)
            return
        }
        guard let decimal = Decimal(string: String(double)) else { return nil }
        self.init(exact: decimal, value: double)
    }

    /// Prices must lie strictly between these bounds.
    package static let plausibleRange = (lower: 1e-12, upper: 1e12)

    /// Both forms of one number (module-internal: `Price+Bytes` builds them from wire bytes).
    init?(exact: Decimal, value: Double) {
        guard value.isFinite, value > Self.plausibleRange.lower, value < Self.plausibleRange.upper, exact > 0 else { return nil }
        self.exact = exact
        self.value = value
    }

    package var description: String { exact.description }
}

/// Strict decimal text parsing: optional sign, digits, optional fraction, optional exponent.
/// Rejects "NaN", "inf", empty strings, hex, thousands separators and trailing garbage,
/// which `Decimal(string:)` and `Double(_:)` would partly accept.
package enum DecimalText {
    package struct Parsed: Sendable {
        package var decimal: Decimal
        package var double: Double
    }

    package static func parse(_ text: Substring) -> Parsed? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 64 else { return nil }
        var index = utf8.startIndex
        var sawDigit = false
        if utf8[index] == UInt8(ascii: "-") || utf8[index] == UInt8(ascii: "+") { index = utf8.index(after: index) }
        while index < utf8.endIndex, isDigit(utf8[index]) { sawDigit = true; index = utf8.index(after: index) }
        if index < utf8.endIndex, utf8[index] == UInt8(ascii: ".") {
            index = utf8.index(after: index)
            while index < utf8.endIndex, isDigit(utf8[index]) { sawDigit = true; index = utf8.index(after: index) }
        }
        guard sawDigit else { return nil }
        if index < utf8.endIndex, utf8[index] == UInt8(ascii: "e") || utf8[index] == UInt8(ascii: "E") {
            index = utf8.index(after: index)
            if index < utf8.endIndex, utf8[index] == UInt8(ascii: "-") || utf8[index] == UInt8(ascii: "+") {
                index = utf8.index(after: index)
            }
            var expDigit = false
            while index < utf8.endIndex, isDigit(utf8[index]) { expDigit = true; index = utf8.index(after: index) }
            guard expDigit else { return nil }
        }
        guard index == utf8.endIndex else { return nil }
        let string = String(text)
        guard let decimal = Decimal(string: string, locale: nil), let double = Double(string) else { return nil }
        return Parsed(decimal: decimal, double: double)
    }

    @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
