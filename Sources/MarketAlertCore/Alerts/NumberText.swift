import Foundation

/// Deterministic number formatting (no locale surprises), one rule for every sink.
///
/// - Numbers in JSON are the shortest decimal that round-trips: published prices and FX rates keep exactly
///   the digits the source published (`Price.exact`, never a binary float round trip); percentages (`pct`,
///   `threshold_pct`, `change_pct`) are rounded to at most 6 decimals (``pct(_:)``); `price_ref`, a number we
///   compute, is rounded by ``CurrencyDigits/priceRef(_:currency:)``.
/// - Text (stdout text, journal `MESSAGE`, Slack/Discord/Telegram) shows the same numbers, grouped for humans
///   (`139,500,000 KRW`, `95,006.70 USDT`, `3.896104%`); journal fields show them plain (`139500000`).
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

    /// Every digit of `value`, grouped, with at least `minimumFractionDigits` decimals: `139,500,000`,
    /// `95,006.70` (minimum 2), `0.00000014`, `98.654`. Never rounds.
    package static func exact(_ value: Decimal, minimumFractionDigits: Int = 0) -> String {
        grouped(value, fractionDigits: max(minimumFractionDigits, fractionDigits(of: value)))
    }

    /// A published price or rate in `currency`, exact and grouped, padded to the currency's minor unit:
    /// `139,500,000` KRW, `95,006.70` USDT, `0.00001234` USDT.
    package static func money(_ value: Decimal, currency: String) -> String {
        exact(value, minimumFractionDigits: CurrencyDigits.minorUnits(currency))
    }

    /// A percentage as every sink writes it: rounded to at most 6 decimals from the double's shortest text
    /// (`3.8961040000000002` → `3.896104`, `0.11000000000000001` → `0.11`). 0 for NaN or infinity.
    package static func pct(_ value: Double) -> Decimal { decimal(value, places: 6) }

    /// ``pct(_:)`` grouped for text, with its own digits only: `3.896104`, `0.11`, `3`, `-1,234.5`.
    package static func pctText(_ value: Double) -> String { exact(pct(value)) }

    /// A price with as many decimals as it needs to stay readable: 2 for ≥ 1, 4 for ≥ 0.01, else 8.
    /// Rounds: for logs and tables only; alerts use ``money(_:currency:)``.
    package static func price(_ value: Decimal) -> String {
        let magnitude = value < 0 ? -value : value
        let digits = magnitude >= 1 ? 2 : (magnitude >= Decimal(string: "0.01")! ? 4 : 8)  // literal
        return grouped(value, fractionDigits: digits)
    }

    package static func price(_ value: Double) -> String { price(decimal(value, places: 8)) }

    /// A percentage with three decimals: `0.123` (logs and tables; alerts use ``pctText(_:)``).
    package static func percent(_ value: Double) -> String { grouped(decimal(value, places: 6), fractionDigits: 3) }

    /// A threshold without trailing zeros: `0.1`, `3`.
    package static func threshold(_ value: Double) -> String { pct(value).description }

    /// A `Double` as a `Decimal` rounded to `places`, starting from the double's shortest round-trip text
    /// (so `0.1` is 0.1, not 0.1000000000000000055…). 0 for NaN or infinity.
    package static func decimal(_ value: Double, places: Int) -> Decimal {
        guard value.isFinite else { return 0 }
        var input = Decimal(string: String(value), locale: nil) ?? Decimal(value)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, places, .plain)
        return rounded
    }

    /// The nearest `Double` to a decimal, through its text (`NSDecimalNumber.doubleValue` is off by an ulp
    /// often enough to print `0.11000000000000001`).
    package static func double(_ value: Decimal) -> Double {
        Double(value.description) ?? NSDecimalNumber(decimal: value).doubleValue
    }

    /// Digits after the point in the shortest text of `value` (`95006.70` → 1, `139500000` → 0).
    static func fractionDigits(of value: Decimal) -> Int {
        let text = value.description
        guard let point = text.firstIndex(of: ".") else { return 0 }
        return text.distance(from: text.index(after: point), to: text.endIndex)
    }
}
