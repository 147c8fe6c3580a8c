import Foundation

/// The router's glue for USDT/KRW (`USDTKRWMachine`): re-selected with every FX refresh and every batch that
/// carries a KRW-USDT quote of a `fx.usdt_krw` exchange; a changed rate re-evaluates every premium rule at
/// once (all KRW legs of `krw_via: usdt` rules on the new rate) and steps the tether premium alert.
extension AlertEngine {
    /// Re-selects USDT/KRW at `now` and steps the tether premium; true when the rate in use changed.
    @discardableResult
    mutating func refreshUSDTKRW(now: Date, into out: inout EngineOutput) -> Bool {
        guard settings.fx.usdtKrw != nil || usdtKrw.selected != nil else { return false }
        let context = context(now)
        let changed = usdtKrw.refresh(context: context, book: book, usdKrw: fx.selected["KRW"], awaiting: gate.awaiting, into: &out)
        usdtKrw.evaluatePremiumAlert(context: context, usdKrw: fx.selected["KRW"], into: &out)
        return changed
    }

    /// Whether a batch from `exchange` carries a KRW-USDT quote that USDT/KRW is taken from (one comparison
    /// per quote, and none for exchanges that are not sources of it).
    func carriesUSDTKRW(_ exchange: ExchangeID, _ quotes: [Quote]) -> Bool {
        guard let sources = settings.fx.usdtKrw, sources.exchanges.contains(exchange) else { return false }
        return quotes.contains { $0.base == "USDT" && $0.quote == "KRW" }
    }

    /// Whether USDT/KRW is taken from `exchange` (`fx.usdt_krw.exchanges`).
    func isUSDTKRWSource(_ exchange: ExchangeID) -> Bool { settings.fx.usdtKrw?.exchanges.contains(exchange) == true }

    /// The `krw_via: usdt` basis over the official converter (rebuilt when either changes).
    mutating func usdtBasis() -> USDTConversionBasis? {
        guard settings.fx.usdtKrw != nil else { return nil }
        return usdtKrw.basis(official: converter)
    }

    /// The USDT/KRW rate in use and the tether premium (status, API, metrics).
    package var usdtKrwRate: FXRate? { usdtKrw.selected }
    package var tetherPremiumPct: Double? { usdtKrw.premiumPct }

    /// The next instant the USDT/KRW selection or the tether alert can change with time alone.
    func usdtKrwDeadline() -> Date? {
        let stale = usdtKrw.deadline(maxQuoteAge: settings.premium.maxQuoteAge)
        guard let alert = usdtKrw.premiumDeadline(settings.fx) else { return stale }
        return stale.map { min($0, alert) } ?? alert
    }

    /// A reload: another source list starts USDT/KRW over; a removed tether alert's state is deleted.
    mutating func reloadUSDTKRW(old: Settings, into out: inout EngineOutput) {
        if old.fx.usdtKrw != settings.fx.usdtKrw { usdtKrw.forget() }
        if settings.fx.tetherAlerts.isEmpty, usdtKrw.premiumAlert != nil {
            usdtKrw.premiumAlert = nil
            out.publication.deletedKeys.append(TetherPremium.key)
        }
    }
}
