import Foundation

/// One normalized ticker from one exchange market.
package struct Quote: Sendable, Equatable {
    package var exchange: ExchangeID
    /// The exchange's own market id, e.g. `BTCUSDT`, `KRW-BTC`, `XXBTZUSD`, `BTC-USD`.
    package var market: String
    /// Normalized base asset (`XBT` is `BTC`).
    package var base: String
    /// Quote currency of the market, e.g. `USDT`, `KRW`, `USD`.
    package var quote: String
    package var last: Price?
    package var bid: Price?
    package var ask: Price?
    /// The exchange's own timestamp, when it publishes one.
    package var exchangeTime: Date?
    /// When the daemon received the response.
    package var receivedAt: Date
    /// How the quote arrived: a REST poll or a live stream.
    package var transport: QuoteTransport = .rest
    /// The market's order book at depth, for `basis: depth` rules (nil: the exchange sent only a ticker).
    /// `bid` and `ask` are then its best levels.
    package var depth: OrderBook?

    package init(
        exchange: ExchangeID, market: String, base: String, quote: String,
        last: Price?, bid: Price? = nil, ask: Price? = nil, exchangeTime: Date? = nil, receivedAt: Date,
        transport: QuoteTransport = .rest
    ) {
        self.exchange = exchange
        self.market = market
        self.base = base
        self.quote = quote
        self.last = last
        self.bid = bid
        self.ask = ask
        self.exchangeTime = exchangeTime
        self.receivedAt = receivedAt
        self.transport = transport
    }

    /// The quote's own time: the exchange timestamp if given, else when it was received.
    package var at: Date { exchangeTime ?? receivedAt }

    /// Mid price, when both sides are published: the exact mean of the sides, and as a Double the mean of
    /// their Doubles (what `QuoteSummary.mid` holds), not the exact mean converted through text: a `basis: mid`
    /// rule reads it for every stream quote.
    package var mid: Price? {
        guard let bid, let ask else { return nil }
        return Price(exact: (bid.exact + ask.exact) / 2, value: (bid.value + ask.value) / 2)
    }
}

/// How a quote reached the daemon (`transport` in alert JSON).
package enum QuoteTransport: String, Sendable, Hashable {
    case rest, stream
}

/// A (base, quote) pair an exchange is asked to watch, e.g. BTC in USDT.
package struct MarketPair: Sendable, Hashable, CustomStringConvertible {
    package var base: String
    package var quote: String

    package init(base: String, quote: String) {
        self.base = base
        self.quote = quote
    }

    package var description: String { "\(base)/\(quote)" }
}
