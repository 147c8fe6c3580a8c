import Foundation
import MarketAlertCore

/// A price as exchanges send it: a JSON string (`"67123.45000000"`) or a JSON number
/// (`163248000.00000000`, `1.4E-7`), read exactly (numbers go to `Decimal` from their text, never through a
/// `Double` round trip). Zero, negative, `"NaN"`, empty and unparsable values give `price == nil`, so one bad
/// field never becomes a price and never fails the whole body; a value of the wrong JSON kind does.
struct WirePrice: Decodable, Sendable {
    let price: Price?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            price = nil
        } else if let text = try? container.decode(String.self) {
            price = Price(text)
        } else if let decimal = try? container.decode(Decimal.self) {
            price = Price(decimal)
        } else {
            throw DecodingError.typeMismatch(
                Price.self, .init(codingPath: decoder.codingPath, debugDescription: "expected a price (string or number)"))
        }
    }
}

/// A Unix time in milliseconds, sent as a JSON number (`1710328245391`) or a digit string (`"1700532903261"`).
/// Absent or `null` is no time; anything else that is not a positive integer fails the decode, so a garbled
/// timestamp never passes for a fresh one.
struct WireMillis: Decodable, Sendable {
    let date: Date

    init(from decoder: any Decoder) throws {
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
struct WireCode: Decodable, Sendable, Equatable {
    let text: String

    init(from decoder: any Decoder) throws {
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
