import Foundation

/// v3 `ipo.value` inside the IPO machine: the latest market price per source and code, which sources have
/// answered since the start (or the last reload), and per offering its value and whether `opens`/`last_day`
/// may notify (``SubscriptionStateMachine/ValueGate``). Without `ipo.value` every offering passes as in v2.
/// Each offering's price is kept in its stored state (`IPOAlertState.price`) and restored with it: after a
/// restart a window goes on with the last price it had until its source answers again.
struct IPOValuation: Sendable {
    private(set) var settings: IPOValueSettings?
    private(set) var prices: [MarketPriceSource: [String: MarketPrice]] = [:]
    private(set) var answered: Set<MarketPriceSource> = []

    init(settings: IPOValueSettings?) {
        self.settings = settings
    }

    /// The prices stored with the offerings' states, where none is known yet (a source's next answer
    /// replaces its share). Sources stay unanswered: an offering without a stored price still waits for its
    /// source.
    mutating func restore(_ states: [String: IPOAlertState]) {
        guard settings != nil else { return }
        for state in states.values {
            guard let price = state.price, let offering = state.offering, price.code == offering.code,
                MarketPriceSource.candidates(for: offering.market).contains(price.source)
            else { continue }
            if prices[price.source]?[price.code] == nil { prices[price.source, default: [:]][price.code] = price }
        }
    }

    /// The price an offering's value is assessed with now (nil: none known). A first listing that is no longer
    /// on the emerging board (it has listed) is priced by its close where it trades now.
    func price(for offering: IPOOffering) -> MarketPrice? {
        guard settings != nil else { return nil }
        return MarketPriceSource.candidates(for: offering.market).lazy.compactMap { prices[$0]?[offering.code] }.first
    }

    /// Keeps a poll's prices (a holiday's empty list keeps the last ones). Returns whether anything an
    /// offering could depend on changed.
    mutating func receive(_ report: MarketPriceReport) -> Bool {
        guard settings != nil else { return false }
        let first = answered.insert(report.source).inserted
        guard !report.failed, !report.prices.isEmpty else { return first }
        let changed = prices[report.source] != report.prices
        prices[report.source] = report.prices
        return first || changed
    }

    /// Another `ipo.value` (or none): sources move, so what was answered is asked again; without the
    /// section the prices are dropped.
    mutating func reload(_ new: IPOValueSettings?) {
        guard new != settings else { return }
        if new == nil || new?.twseURL != settings?.twseURL || new?.tpexURL != settings?.tpexURL {
            prices = [:]
            answered = []
        }
        settings = new
    }

    /// The offering's value (nil without `ipo.value`) and whether its `opens`/`last_day` may notify now:
    /// held while the price source it needs has not answered yet, or while the known spread is below
    /// `min_spread_pct`. A market type without a price source, or a code the source does not list, is an
    /// unknown price: it notifies, saying so.
    func assess(_ offering: IPOOffering) -> (value: IPOValue?, gate: SubscriptionStateMachine.ValueGate) {
        guard let settings else { return (nil, .open) }
        let source = MarketPriceSource.forMarket(offering.market)
        let price = price(for: offering)
        let value = IPOValue.of(offering, price: price)
        if let source, price == nil, !answered.contains(source) { return (value, .wait) }
        return (value, value.isWorth(minSpreadPct: settings.minSpreadPct) ? .open : .belowMinimum)
    }
}
