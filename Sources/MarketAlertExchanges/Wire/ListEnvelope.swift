import Foundation

/// A recorded envelope whose list holds one row: the text before the list's first element, that element as a
/// template, and the text after it (`]},"retExtInfo":{},"time":…}`).
package struct ListEnvelope: Sendable {
    package let prefix: String
    package let row: FlatJSONTemplate
    package let suffix: String

    /// From a recorded answer literal in this code base; a malformed one is a programming error caught by the
    /// kit tests.
    package init(constant text: String, listKey: String) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let list = text.range(of: "\"\(listKey)\":["), let end = text[list.upperBound...].firstIndex(of: "}") else {
            preconditionFailure("recorded envelope without a \(listKey) list")
        }
        prefix = String(text[..<list.upperBound])
        row = FlatJSONTemplate(constant: String(text[list.upperBound...end]))
        suffix = String(text[text.index(after: end)...])
        precondition(suffix.hasPrefix("]"), "the recorded \(listKey) list has more than one row")
    }

    /// The recorded text (for checking it against its fixture).
    package var recorded: String { prefix + row.render([:]) + suffix }

    /// The envelope around `rows`, with top-level number members (`time`, `requestTime`) replaced.
    package func body(rows: [String], numbers: [String: Int64] = [:]) -> String {
        var head = prefix
        var tail = suffix
        for (key, value) in numbers {
            head = Self.replacingNumber(key, with: value, in: head)
            tail = Self.replacingNumber(key, with: value, in: tail)
        }
        return head + rows.joined(separator: ",") + tail
    }

    private static func replacingNumber(_ key: String, with value: Int64, in text: String) -> String {
        guard let member = text.range(of: "\"\(key)\":") else { return text }
        let end = text[member.upperBound...].firstIndex { $0 == "," || $0 == "}" } ?? text.endIndex
        return text.replacingCharacters(in: member.upperBound..<end, with: String(value))
    }
}

/// Decimal text as the exchanges spell it.
package enum DecimalFormat {
    /// `67123.45000000` (Binance, Upbit).
    package static func fixed(_ value: Double, places: Int) -> String { String(format: "%.\(places)f", value) }

    /// Decimal places that give `price` eight significant digits (at least two, at most twelve), so that a
    /// cheap coin's price keeps its precision (`0.00012345`) and a dear one stays readable (`67123.456`).
    package static func places(for price: Double) -> Int {
        guard price > 0, price.isFinite else { return 2 }
        return min(12, max(2, 7 - Int(log10(price).rounded(.down))))
    }

    /// `0.05691000` → `0.05691`, `28.00000000` → `28` (Bybit, OKX, Bitget send no trailing zeros).
    package static func trimmed(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var result = Substring(text)
        while result.hasSuffix("0") { result = result.dropLast() }
        if result.hasSuffix(".") { result = result.dropLast() }
        return String(result)
    }

    /// ISO 8601 in UTC with milliseconds (`2024-03-13T11:10:41.270Z`).
    package static func isoMillis(_ millis: Int64) -> String {
        Date(timeIntervalSince1970: Double(millis) / 1000).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
