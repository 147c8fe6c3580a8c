import Foundation
import MarketAlertCore
import MarketAlertKit

extension BithumbTickerSource {
    /// The watched coins of an `ALL_<quote>` answer: closing prices by coin (sorted), the map's `date`, and
    /// how many coins it had.
    package struct CoinPrices {
        package var prices: [(coin: String, closing: WirePrice?)]
        package var date: Date?
        package var coinCount: Int
    }

    /// The quick read of an ordinary `ALL_<quote>` answer, in one pass over the bytes (`JSONBytes`, no
    /// `Codable`): `status` "0000", `data` an object of coin → ticker plus `date` (positive integer ms), and
    /// for each watched coin an object whose `closing_price` is a usable price or null. Nil for anything else
    /// (an error status, a single-market ticker, a repeated coin, an unusable price, a malformed byte); the
    /// decoder then reads the body with `Envelope`, which names what was wrong.
    package static func quickPrices(_ body: Data, coins: Set<String>) -> CoinPrices? {
        body.withUnsafeBytes { raw -> CoinPrices? in
            let json = JSONBytes(raw)
            guard let root = json.root else { return nil }
            var success = false
            var result: CoinPrices?
            var refused = false
            let end = json.walkMembers(ofObjectAt: root) { keyStart, keyEnd, value in
                if json.matches(keyStart, keyEnd, "status") {
                    success = (value.kind == .string || value.kind == .number) && json.matches(value.start, value.end, "0000")
                    return .next
                }
                guard json.matches(keyStart, keyEnd, "data") else { return .next }
                guard result == nil, value.kind == .object else {
                    refused = true
                    return .stop
                }
                var prices = CoinPrices(prices: [], date: nil, coinCount: 0)
                var seen: Set<String> = []
                let end = json.walkMembers(ofObjectAt: value.start, depth: 1) { coinStart, coinEnd, ticker in
                    if json.matches(coinStart, coinEnd, "date") {
                        if json.isNull(ticker) { return .next }
                        guard prices.date == nil, let millis = json.integer(ticker), millis > 0 else { return .stop }
                        prices.date = Date(timeIntervalSince1970: Double(millis) / 1000)
                        return .next
                    }
                    if json.matches(coinStart, coinEnd, "closing_price") { return .stop }  // a single-market answer
                    prices.coinCount += 1
                    guard let coin = json.plainString(JSONBytes.Value(start: coinStart, end: coinEnd, kind: .string)) else { return .stop }
                    guard coins.contains(coin) else { return .next }
                    guard ticker.kind == .object, seen.insert(coin).inserted else { return .stop }
                    var closing: WirePrice?
                    var usable = true
                    let end = json.walkMembers(ofObjectAt: ticker.start, depth: 2) { fieldStart, fieldEnd, price in
                        guard json.matches(fieldStart, fieldEnd, "closing_price") else { return .next }
                        if json.isNull(price) { return .next }
                        guard closing == nil, let usablePrice = json.price(price) else {
                            usable = false
                            return .stop
                        }
                        closing = WirePrice(usablePrice)
                        return .next
                    }
                    guard let end, usable else { return .stop }
                    prices.prices.append((coin, closing))
                    return .walked(end)
                }
                guard let end else {
                    refused = true
                    return .stop
                }
                result = prices
                return .walked(end)
            }
            guard let end, !refused, success, var result, json.skipSpace(end) == json.bytes.count else { return nil }
            result.prices.sort { $0.coin < $1.coin }
            return result
        }
    }
}
