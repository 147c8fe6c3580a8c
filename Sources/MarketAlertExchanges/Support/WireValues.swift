import Foundation
import MarketAlertCore
import MarketAlertKit

/// A price as exchanges send it: a JSON string (`"67123.45000000"`) or a JSON number
/// (`163248000.00000000`, `1.4E-7`), read exactly (numbers go to `Decimal` from their text, never through a
/// `Double` round trip). Zero, negative, `"NaN"`, empty, padded, full-width, out-of-range (`Price`) and
/// unparsable values give `price == nil` with the value kept in `rejected`, so one bad field never becomes a
/// price and never fails the whole body, but is counted (`QuoteCollector`); a value of the wrong JSON kind
/// fails the body.
package struct WirePrice: Decodable, Sendable {
    package let price: Price?
    /// The value as sent (at most 24 characters, control characters removed) when it was there but unusable;
    /// nil when the field was null or the price is usable.
    package let rejected: String?

    /// A usable price read without `Decodable` (the quick reads, e.g. `KrakenTickerSource.quickRows`).
    package init(_ price: Price) {
        self.price = price
        rejected = nil
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            price = nil
            rejected = nil
        } else if let text = try? container.decode(String.self) {
            price = Price(text)
            rejected = price == nil ? Self.shown(text) : nil
        } else if let decimal = try? container.decode(Decimal.self) {
            price = Price(decimal)
            rejected = price == nil ? Self.shown(decimal.description) : nil
        } else if let double = try? container.decode(Double.self) {
            price = nil  // a number beyond Decimal's range (1e308) is no price
            rejected = Self.shown(String(double))
        } else {
            throw DecodingError.typeMismatch(
                Price.self, .init(codingPath: decoder.codingPath, debugDescription: "expected a price (string or number)"))
        }
    }
}

extension WirePrice {
    /// `text` fit for a log line: at most 24 characters, control and bidi-format characters as `?`.
    package static func shown(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(24) {
            let category = scalar.properties.generalCategory
            shown.unicodeScalars.append(category == .control || category == .format ? "?" : scalar)
        }
        return text.unicodeScalars.count > 24 ? shown + "…" : shown
    }
}

/// A Unix time in milliseconds, sent as a JSON number (`1710328245391`) or a digit string (`"1700532903261"`).
/// Absent or `null` is no time; anything else that is not a positive integer fails the decode, so a garbled
/// timestamp never passes for a fresh one.
package struct WireMillis: Decodable, Sendable {
    package let date: Date

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let millis: Int64?
        if let number = try? container.decode(Int64.self) {
            millis = number
        } else if let text = try? container.decode(String.self) {
            millis = text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? Int64(text) : nil
        } else {
            millis = nil
        }
        guard let millis, millis > 0 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected a positive millisecond timestamp"))
        }
        date = Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}

/// A status or error code sent as a JSON number (`0`, `-1121`) or a string (`"00000"`, `"0"`), kept as text.
package struct WireCode: Decodable, Sendable, Equatable {
    package let text: String

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            text = String(number)
        } else if let string = try? container.decode(String.self) {
            text = string
        } else {
            throw DecodingError.typeMismatch(
                String.self, .init(codingPath: decoder.codingPath, debugDescription: "expected a code (number or string)"))
        }
    }
}
