import Foundation

/// The latest quote per exchange and market pair. A value type owned by the alert engine: a REST poll
/// replaces an exchange's quotes wholesale, a stream batch updates the markets it carries.
///
/// Quotes live in a flat array of slots, one per (exchange, market) ever seen, so that a compiled evaluation
/// plan (`PremiumPlan`) reads them by index instead of hashing two strings per exchange and asset. A slot,
/// once given, keeps its index for the life of the book (a dropped market leaves its slot empty); `layout`
/// changes identity whenever a slot is added, which tells a plan to look its indexes up again.
package struct QuoteBook: Sendable {
    private var slots: [ExchangeID: [MarketPair: Int]] = [:]
    private var entries: [Quote?] = []
    /// Per slot, what evaluation reads of every quote, as plain numbers: `Quote` holds Foundation's resilient
    /// `Date` and `Decimal`, so reading it in place still copies all of it.
    private var summaries: [QuoteSummary] = []
    /// Replaced (never mutated) when a slot is added: copies of a book that diverge never share a layout.
    package private(set) var layout = QuoteBookLayout()

    package init() {}

    /// Replaces everything known about `exchange` with `newQuotes` (markets missing from a poll are dropped,
    /// so a delisted market cannot linger as a stale price).
    package mutating func replace(_ exchange: ExchangeID, with newQuotes: [Quote]) {
        if let known = slots[exchange] {
            for slot in known.values { clear(slot) }
        }
        update(exchange, with: newQuotes)
    }

    /// Merges `newQuotes` into what is known about `exchange` (a stream batch: only the markets it carries
    /// change).
    package mutating func update(_ exchange: ExchangeID, with newQuotes: [Quote]) {
        for quote in newQuotes where quote.exchange == exchange {
            let pair = MarketPair(base: quote.base, quote: quote.quote)
            if let slot = slots[exchange]?[pair] {
                summaries[slot] = QuoteSummary(quote)
                if let depth = quote.depth, var kept = entries[slot]?.depth {
                    // The book's levels are copied into this slot's own storage, so the stream's table (whose
                    // book the quote shares) stays the only owner of its own: neither allocates per message.
                    entries[slot] = quote
                    kept.assign(from: depth)
                    entries[slot]?.depth = kept
                } else {
                    entries[slot] = quote
                }
            } else {
                slots[exchange, default: [:]][pair] = entries.count
                summaries.append(QuoteSummary(quote))
                entries.append(quote)
                layout = QuoteBookLayout()
            }
        }
    }

    package mutating func remove(_ exchange: ExchangeID) {
        guard let known = slots[exchange] else { return }
        for slot in known.values { clear(slot) }
    }

    private mutating func clear(_ slot: Int) {
        entries[slot] = nil
        summaries[slot] = QuoteSummary()
    }

    package func quote(_ exchange: ExchangeID, _ pair: MarketPair) -> Quote? {
        guard let slot = slots[exchange]?[pair] else { return nil }
        return entries[slot]
    }

    /// The exchanges the book has held quotes of.
    package var exchanges: [ExchangeID] { Array(slots.keys) }

    /// The quotes held for `exchange` (for reads outside evaluation, such as the API's order books).
    package func quotes(of exchange: ExchangeID) -> [Quote] {
        slots[exchange].map { $0.values.compactMap { entries[$0] } } ?? []
    }

    /// Calls `body` with the market id and order book of every quote of `exchange` that carries a book, read
    /// in place (a quote is not copied: the metrics scrape asks for every exchange's books).
    package func forEachOrderBook(of exchange: ExchangeID, _ body: (_ market: String, _ book: OrderBook) -> Void) {
        guard let known = slots[exchange] else { return }
        for slot in known.values {
            guard let depth = entries[slot]?.depth, let market = entries[slot]?.market else { continue }
            body(market, depth)
        }
    }

    /// The slot of a market, if the book has ever held a quote for it (valid while `layout` is the same).
    package func slot(_ exchange: ExchangeID, _ pair: MarketPair) -> Int? { slots[exchange]?[pair] }

    /// The quote in `slot` (nil when the market was dropped). `slot` comes from `slot(_:_:)` under the
    /// current `layout`.
    @inline(__always)
    package func quote(inSlot slot: Int) -> Quote? { entries[slot] }

    /// What evaluation reads of the quote in `slot`, without copying the quote.
    @inline(__always)
    package func summary(inSlot slot: Int) -> QuoteSummary { summaries[slot] }
}

/// The identity of a `QuoteBook`'s slot assignment. No state: only its identity (`===`) matters, and a plan
/// that holds one keeps it alive, so an identity is never reused while compared against.
package final class QuoteBookLayout: Sendable {
    package init() {}
}

/// A quote's time and last price as plain numbers (a trivial type: reading it copies 24 bytes).
package struct QuoteSummary: Sendable {
    /// Whether the slot holds a quote.
    package var present: Bool
    /// `Quote.at` as seconds since the reference date (`Date`'s own representation, so comparisons agree).
    package var at: Double
    /// `Quote.last?.value`, when there is a last price.
    package var last: Double?
    /// `Quote.mid?.value` (the mean of bid and ask), when both sides are published.
    package var mid: Double?

    init() {
        present = false
        at = 0
        last = nil
        mid = nil
    }

    init(_ quote: Quote) {
        present = true
        at = quote.at.timeIntervalSinceReferenceDate
        last = quote.last?.value
        if let bid = quote.bid, let ask = quote.ask { mid = (bid.value + ask.value) / 2 } else { mid = nil }
    }
}
