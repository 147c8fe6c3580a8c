import Foundation

/// What an evaluation keeps of a `last` or `mid` premium: the two sides by quote-book slot, with their
/// reference prices, quote times and FX rates. The full `PremiumObservation` (two `Quote`s, 800 bytes) is
/// made from it and the book only when something reads it (a notification, the status page, the API):
/// evaluating a key copies no quote.
///
/// The book's slots keep their index for the book's life, and every quote that changes a slot re-evaluates
/// the keys reading it, so the quotes in the slots are those the sides were observed on; a slot emptied since
/// (a market dropped) makes no observation.
package struct ObservedSides: Sendable {
    package struct Side: Sendable {
        /// The quote's slot in the `QuoteBook`.
        var slot: Int
        /// The price in the reference currency.
        var ref: Double
        /// `Quote.at`, as seconds since the reference date (`QuoteSummary.at`).
        var at: Double
        /// The FX rates behind `ref`.
        var rates: [FXRate]
    }

    var asset: String
    /// Percent: (high - low) / low × 100.
    package var pct: Double
    /// The rule's basis: `last` (else `mid`).
    var last: Bool
    var high: Side
    var low: Side

    /// The older of the two quotes' times (a pending key starts over when it goes stale).
    var oldestAt: Date { Date(timeIntervalSinceReferenceDate: min(high.at, low.at)) }

    /// Whether `observation(in:)` would make an observation: both slots hold a quote with the basis's price
    /// (a mid needs a bid and an ask, and their mean of two valid prices is one), checked without making it.
    func isPriced(in book: QuoteBook) -> Bool {
        guard let dear = book.quote(inSlot: high.slot), let cheap = book.quote(inSlot: low.slot) else { return false }
        return last ? dear.last != nil && cheap.last != nil : dear.bid != nil && dear.ask != nil && cheap.bid != nil && cheap.ask != nil
    }

    /// The observation as `PremiumCalculator.observe` makes it, from the quotes in `book` (nil when a slot was
    /// emptied since).
    package func observation(in book: QuoteBook) -> PremiumObservation? {
        guard let dear = book.quote(inSlot: high.slot), let cheap = book.quote(inSlot: low.slot),
              let dearPrice = last ? dear.last : dear.mid, let cheapPrice = last ? cheap.last : cheap.mid
        else { return nil }
        let side = last ? "last" : "mid"
        return PremiumObservation(
            asset: asset, pct: pct,
            high: PricedQuote(quote: dear, side: side, price: dearPrice, priceRef: high.ref, rates: high.rates),
            low: PricedQuote(quote: cheap, side: side, price: cheapPrice, priceRef: low.ref, rates: low.rates))
    }
}

/// A key's latest observation as the evaluator keeps it: the sides of a `last`/`mid` rule, or the whole
/// observation of a `bidask`/`depth` rule (made from its candidates anyway).
enum LatestObservation: Sendable {
    case sides(ObservedSides)
    case full(PremiumObservation)

    var pct: Double {
        switch self {
        case .sides(let sides): sides.pct
        case .full(let observation): observation.pct
        }
    }

    func observation(in book: QuoteBook) -> PremiumObservation? {
        switch self {
        case .sides(let sides): sides.observation(in: book)
        case .full(let observation): observation
        }
    }
}
