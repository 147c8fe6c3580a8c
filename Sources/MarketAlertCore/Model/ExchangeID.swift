/// An exchange the daemon knows how to poll. Config keys under `exchanges:` must be one of these.
package enum ExchangeID: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case binance, bybit, bitget, okx, upbit, bithumb, kraken, coinbase

    package static func < (lhs: ExchangeID, rhs: ExchangeID) -> Bool { lhs.rawValue < rhs.rawValue }
}
