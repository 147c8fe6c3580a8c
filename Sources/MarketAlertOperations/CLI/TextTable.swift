import MarketAlertConfigReader
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
/// A plain-text table for the terminal: columns padded to their widest cell (CJK characters count as two
/// columns), a header row, two spaces between columns.
package struct TextTable {
    private let headers: [String]
    private var rows: [[String]] = []

    package init(_ headers: [String]) { self.headers = headers }

    /// Cells come from the daemon's answers (silence comments, exchange error messages): control and format
    /// characters are shown escaped (`\u{1b}`), never sent to the terminal.
    package mutating func add(_ row: [String]) { rows.append(row.map(Self.printable)) }

    /// `text` with every control or format scalar (ESC, BEL, BS, bidi overrides, …) written as `\u{…}`.
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnprintable) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnprintable(scalar) { out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }

    private static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        [.control, .format].contains(scalar.properties.generalCategory)
    }

    package var isEmpty: Bool { rows.isEmpty }

    package func render() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { Self.width($0.indices.contains(column) ? $0[column] : "") }.max() ?? 0 }
        return all.map { row in
            headers.indices.map { column -> String in
                let cell = row.indices.contains(column) ? row[column] : ""
                guard column < headers.count - 1 else { return cell }
                return cell + String(repeating: " ", count: widths[column] - Self.width(cell))
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n")
    }

    /// Terminal columns of `text`: East Asian wide characters take two.
    package static func width(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { total, scalar in
            let v = scalar.value
            let wide = (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v)
                || (0x20000...0x3FFFD).contains(v)
            return total + (wide ? 2 : 1)
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
