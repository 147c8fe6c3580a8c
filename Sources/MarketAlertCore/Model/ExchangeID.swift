/// An exchange's identity: its config key (`binance`, `upbit`, …). An open set: which exchanges exist is
/// decided by the adapter registry (`ExchangeRegistry` in MarketAlertIO), which hands the config reader an
/// `ExchangeCatalog`. The constants below name the exchanges shipped today, for code and tests that refer to
/// one of them; nothing may `switch` over the set.
package struct ExchangeID: RawRepresentable, Sendable, Hashable, Codable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    package let rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { self.rawValue = value }

    package init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    package var description: String { rawValue }

    package static func < (lhs: ExchangeID, rhs: ExchangeID) -> Bool { lhs.rawValue < rhs.rawValue }

    package static let binance: ExchangeID = "binance"
    package static let bybit: ExchangeID = "bybit"
    package static let bitget: ExchangeID = "bitget"
    package static let okx: ExchangeID = "okx"
    package static let upbit: ExchangeID = "upbit"
    package static let bithumb: ExchangeID = "bithumb"
    package static let kraken: ExchangeID = "kraken"
    package static let coinbase: ExchangeID = "coinbase"
}
