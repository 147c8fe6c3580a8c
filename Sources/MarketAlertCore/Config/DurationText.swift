/// Durations in the config are strings: `250ms`, `5s`, `10m`, `1h`, `1d`, or compounds such as `1h30m`.
package enum DurationText {
    package static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharactersInSet()
        guard !trimmed.isEmpty else { return nil }
        if trimmed == "0" { return .zero }
        var total: Duration = .zero
        var digits = ""
        var unit = ""
        var sawComponent = false
        func flush() -> Bool {
            guard !digits.isEmpty, let amount = Int64(digits), amount <= 1_000_000_000 else { return false }
            let piece: Duration
            switch unit {
            case "ms": piece = .milliseconds(amount)
            case "s": piece = .seconds(amount)
            case "m": piece = .seconds(amount * 60)
            case "h": piece = .seconds(amount * 3600)
            case "d": piece = .seconds(amount * 86_400)
            default: return false
            }
            total += piece
            digits = ""
            unit = ""
            sawComponent = true
            return true
        }
        for character in trimmed {
            if character.isASCII, character.isNumber {
                if !unit.isEmpty { guard flush() else { return nil } }
                digits.append(character)
            } else if character.isASCII, character.isLetter {
                guard !digits.isEmpty else { return nil }
                unit.append(character)
            } else {
                return nil
            }
        }
        guard flush(), sawComponent else { return nil }
        return total
    }

    /// `90s` → `1m30s`; used in messages and `check-config` output.
    package static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let millis = attoseconds / 1_000_000_000_000_000
        if seconds == 0 { return "\(millis)ms" }
        var rest = seconds
        var parts: [String] = []
        for (unit, size) in [("d", Int64(86_400)), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            parts.append("\(rest / size)\(unit)")
            rest %= size
        }
        if millis > 0 { parts.append("\(millis)ms") }
        return parts.joined()
    }
}

extension Duration {
    /// Seconds as a floating-point number (for `Date` arithmetic and backoff math).
    package var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}

extension String {
    fileprivate func trimmingCharactersInSet() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
