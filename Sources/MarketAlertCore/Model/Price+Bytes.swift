import Foundation

extension Price {
    /// Parses decimal text straight from wire bytes (`25.35190000`, `127.0`, `1.4E-7`), accepting exactly what
    /// `DecimalText.parse` accepts and giving the same `exact` and `value`, without building a `String`: the
    /// digits go into a 64-bit significand and a decimal exponent. Zero, negative, empty, `NaN`, `inf` and
    /// anything malformed give nil. Text with more than 19 significant digits, or an exponent a `Decimal`
    /// cannot hold, takes the `String` path (rare; still correct).
    package init?(bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        guard let scanned = DecimalBytes.scan(bytes) else { return nil }
        switch scanned {
        case .zeroOrNegative:
            return nil
        case .slow:
            self.init(String(decoding: bytes, as: UTF8.self))
        case .fast(let significand, let exponent):
            guard let double = DecimalBytes.double(significand: significand, exponent: exponent) else {
                self.init(String(decoding: bytes, as: UTF8.self))
                return
            }
            let decimal = Decimal(sign: .plus, exponent: exponent, significand: Decimal(significand))
            self.init(exact: decimal, value: double)
        }
    }
}

/// The scanning half of `Price(bytes:)`.
enum DecimalBytes {
    enum Scanned {
        case fast(significand: UInt64, exponent: Int)
        case zeroOrNegative
        case slow
    }

    /// Checks the strict grammar (sign, digits, fraction, exponent; at least one digit) and reads the number.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> Scanned? {
        var index = 0
        let count = bytes.count
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        var significand: UInt64 = 0
        var digits = 0          // significant digits kept in `significand`
        var overflow = false
        var sawDigit = false
        var exponent = 0
        while index < count, let digit = digitValue(bytes[index]) {
            sawDigit = true
            accumulate(digit, into: &significand, digits: &digits, overflow: &overflow, exponentShift: &exponent, fraction: false)
            index += 1
        }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < count, let digit = digitValue(bytes[index]) {
                sawDigit = true
                accumulate(digit, into: &significand, digits: &digits, overflow: &overflow, exponentShift: &exponent, fraction: true)
                index += 1
            }
        }
        guard sawDigit else { return nil }
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var value = 0
            var expDigit = false
            while index < count, let digit = digitValue(bytes[index]) {
                expDigit = true
                if value < 100_000 { value = value * 10 + Int(digit) }
                index += 1
            }
            guard expDigit else { return nil }
            exponent += exponentNegative ? -value : value
        }
        guard index == count else { return nil }
        if significand == 0 && !overflow { return .zeroOrNegative }
        if negative { return .zeroOrNegative }
        if overflow || exponent < -100 || exponent > 100 { return .slow }
        return .fast(significand: significand, exponent: exponent)
    }

    @inline(__always)
    private static func accumulate(
        _ digit: UInt8, into significand: inout UInt64, digits: inout Int, overflow: inout Bool,
        exponentShift: inout Int, fraction: Bool
    ) {
        if significand == 0 && digit == 0 {
            // Leading zeros are not significant; in the fraction they still move the point.
            if fraction { exponentShift -= 1 }
            return
        }
        if digits < 19 {
            significand = significand * 10 + UInt64(digit)
            digits += 1
            if fraction { exponentShift -= 1 }
        } else {
            overflow = true
            if !fraction { exponentShift += 1 }
        }
    }

    @inline(__always)
    private static func digitValue(_ byte: UInt8) -> UInt8? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? byte &- UInt8(ascii: "0") : nil
    }

    /// The correctly rounded `Double` when both the significand and the power of ten are exact doubles
    /// (one IEEE multiplication or division then rounds once); nil otherwise (the caller falls back).
    static func double(significand: UInt64, exponent: Int) -> Double? {
        guard significand <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let mantissa = Double(significand)
        return exponent >= 0 ? mantissa * powersOfTen[exponent] : mantissa / powersOfTen[-exponent]
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }
}

/// A quantity from wire bytes (an order-book level's size): like a price, but zero is a value (an empty
/// level), and the result is a plain `Double`; negative, `NaN`, `inf` and malformed text give nil.
package enum QuantityBytes {
    package static func value(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty, bytes.count <= 64, bytes[0] != UInt8(ascii: "-") else { return nil }
        switch DecimalBytes.scan(bytes) {
        case nil: return nil
        case .zeroOrNegative?: return 0
        case .fast(let significand, let exponent)?:
            return DecimalBytes.double(significand: significand, exponent: exponent)
                ?? Double(String(decoding: bytes, as: UTF8.self)).flatMap { $0.isFinite ? $0 : nil }
        case .slow?:
            return Double(String(decoding: bytes, as: UTF8.self)).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        }
    }
}
