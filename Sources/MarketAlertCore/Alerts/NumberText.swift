import Foundation

/// Deterministic number formatting for human summaries (no locale surprises): `95,123.45`, `0.123`.
package enum NumberText {
    /// Groups thousands with commas and rounds to `fractionDigits` (trailing zeros kept).
    package static func grouped(_ value: Decimal, fractionDigits: Int) -> String {
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, fractionDigits, .plain)
        let negative = rounded < 0
        let text = (negative ? -rounded : rounded).description
        let parts = text.split(separator: ".", maxSplits: 1)
        let integer = String(parts.first ?? "0")
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        while fraction.count < fractionDigits { fraction.append("0") }
        var grouped = ""
        for (offset, character) in integer.reversed().enumerated() {
            if offset > 0, offset % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        let sign = negative ? "-" : ""
        let body = String(grouped.reversed())
        return fractionDigits > 0 ? "\(sign)\(body).\(fraction)" : "\(sign)\(body)"
    }

    /// A price with as many decimals as it needs to stay readable: 2 for ≥ 1, 4 for ≥ 0.01, else 8.
    package static func price(_ value: Decimal) -> String {
        let magnitude = value < 0 ? -value : value
        let digits = magnitude >= 1 ? 2 : (magnitude >= Decimal(string: "0.01")! ? 4 : 8)  // literal
        return grouped(value, fractionDigits: digits)
    }

    package static func price(_ value: Double) -> String { price(decimal(value, places: 8)) }

    /// A percentage with three decimals: `0.123`.
    package static func percent(_ value: Double) -> String { grouped(decimal(value, places: 6), fractionDigits: 3) }

    /// A threshold without trailing zeros: `0.1`, `3`.
    package static func threshold(_ value: Double) -> String {
        var text = decimal(value, places: 6).description
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// A `Double` as a `Decimal` rounded to `places` (so JSON shows `95123.45`, not `95123.4500000000001`).
    package static func decimal(_ value: Double, places: Int) -> Decimal {
        guard value.isFinite else { return 0 }
        var input = Decimal(string: String(value)) ?? Decimal(value)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, places, .plain)
        return rounded
    }
}
