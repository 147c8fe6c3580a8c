import Foundation

/// v3 `ipo.value` inside the IPO machine: the latest market price per source and code, which sources have
/// answered since the start (or the last reload), and per offering its value and whether `opens`/`last_day`
/// may notify (``SubscriptionStateMachine/ValueGate``). Without `ipo.value` every offering passes as in v2.
/// Prices are not persisted: after a restart windows wait for the first poll of their source again.
struct IPOValuation: Sendable {
    private(set) var settings: IPOValueSettings?
    private(set) var prices: [MarketPriceSource: [String: MarketPrice]] = [:]
    private(set) var answered: Set<MarketPriceSource> = []

    init(settings: IPOValueSettings?) {
        self.settings = settings
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
        let price = source.flatMap { prices[$0]?[offering.code] }
        let value = IPOValue.of(offering, price: price)
        if let source, price == nil, !answered.contains(source) { return (value, .wait) }
        return (value, value.isWorth(minSpreadPct: settings.minSpreadPct) ? .open : .belowMinimum)
    }
}
