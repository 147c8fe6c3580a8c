import Foundation

/// Everything the alert engine learns, as one stream of typed events. Producers (exchange sources, the FX
/// poller, the IPO poller, the reload service) only push these; they know nothing of alerts, sinks or stores.
package enum EngineEvent: Sendable {
    /// An exchange delivered quotes. `.snapshot` (a REST poll) replaces what the book held for the exchange;
    /// `.update` (a stream batch) changes only the markets it carries.
    case quotes(ExchangeID, [Quote], QuoteDelivery)
    /// A fetch from a source failed: an exchange, an FX provider (by provider name) or an IPO source.
    case sourceFailed(source: String, message: String)
    /// A non-exchange source (an FX provider, an IPO source) answered.
    case sourceSucceeded(source: String)
    /// An exchange's stream went live or down (REST keeps the book filled while it is down).
    case stream(ExchangeID, live: Bool, reason: String?)
    /// An FX polling round ended: the providers' rates as they stand and the failover that selects among
    /// them. Rules that need FX settle on the first round, whatever its outcome.
    case fxRound(FXRateBook, FXFailover)
    /// An IPO source's current offerings after a successful poll (row problems are the producer's to log).
    case ipoOfferings(source: String, [IPOOffering])
    /// v3 `ipo.value`: a market-price source's poll (TWSE close, TPEx close, TPEx emerging average).
    case ipoMarketPrices(MarketPriceReport)
    /// v3: an exchange's deposit and withdrawal status after a successful poll.
    case transfers(TransferReport)
    /// v3 `listings:`: an exchange's market list (every market it lists, any quote) after a successful poll.
    /// A failed or empty poll is a `sourceFailed` of `ListingSettings.sourceName(exchange)`.
    case marketList(ExchangeID, [ListedMarket])
    /// A reload replaced the configuration.
    case settings(Settings)
    /// The silences changed (the API), or at start: the stored silences and firing records.
    case silences(SilenceSnapshot)
    /// After a reload changed `history.resolution`: the context rings rebuilt from the stored samples at the
    /// new resolution, merged under what the engine closed since.
    case historyRebuilt(PremiumHistory)
}

package enum QuoteDelivery: Sendable, Equatable {
    case snapshot, update
}
