import Foundation

/// The router's glue for `listings:` (`ListingMachine`): a market list goes to the machine; an empty one is
/// recorded as a failure of the exchange's listing source (`<exchange>-listings`), whose repeated failures
/// raise `source/<exchange>-listings` as any source's do.
extension AlertEngine {
    mutating func receiveMarketList(_ exchange: ExchangeID, _ markets: [ListedMarket], now: Date, into out: inout EngineOutput) {
        let source = ListingSettings.sourceName(exchange)
        switch listings.receive(exchange, markets, context: context(now), into: &out) {
        case .accepted:
            recordSource(source, error: nil, now: now, into: &out)
        case .failed(let message):
            out.log(.warning, "\(source): \(message)", subject: source)
            recordSource(source, error: message, now: now, into: &out)
        case .ignored:
            break
        }
    }

    /// Listings and delistings notified since `since` (at most 7 days back), newest first.
    package func listingRecords(since: Date) -> [ListingRecord] { listings.recent(since: since) }
}

extension ListingSettings {
    /// The source name under which an exchange's market-list polls are tracked (health, `source/…` alerts).
    package static func sourceName(_ exchange: ExchangeID) -> String { "\(exchange.rawValue)-listings" }

}
