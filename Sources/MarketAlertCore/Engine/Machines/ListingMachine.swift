import Foundation

/// v3 `listings:`: each watched exchange's known market list (`ListingBook`, restored from the store) against
/// the lists its poller fetches. The first list of an exchange (no book yet) is recorded and notifies
/// nothing; afterwards each market that appears is `listed` once and each that goes is `delisted` once —
/// a market listed while the daemon was down is found on the first poll after the start, against the stored
/// book. The book and the notifications are published together, so a restart, a reload or an HA takeover
/// never notifies the same change twice.
///
/// A list that holds none of the watched quotes is a source failure (never a mass delisting); one that loses
/// more than `ListingBook.shrinkShare` of the known markets at once waits for a second poll that still misses
/// them. `now` in, actions out.
struct ListingMachine: Sendable {
    private(set) var books: [ExchangeID: ListingBook] = [:]

    init(restored: [String: ListingBook]) { adopt(restored) }

    /// What a market list came to: accepted, or a source failure (the router records it against the source).
    enum Outcome: Equatable {
        case accepted
        case failed(String)
        case ignored
    }

    mutating func receive(_ exchange: ExchangeID, _ all: [ListedMarket], context: MachineContext, into out: inout EngineOutput) -> Outcome {
        guard let settings = context.settings.listings, settings.exchanges.contains(exchange) else { return .ignored }
        let now = context.now
        let quotes = Set(settings.quotes)
        var seen: [String: ListedMarket] = [:]
        for market in all where quotes.contains(market.quote) { seen[market.market] = market }
        if seen.isEmpty {
            return .failed("the market list holds no \(settings.quotes.joined(separator: "/")) market (\(all.count) markets in all); not a delisting")
        }
        guard var book = books[exchange] else {
            let book = ListingBook(
                markets: seen.mapValues { ListingBook.Known(asset: $0.asset, quote: $0.quote, firstSeen: now) }, quotes: settings.quotes)
            out.log(.info, "\(exchange) lists \(seen.count) \(settings.quotes.joined(separator: "/")) markets; recorded, nothing notified (first run)")
            store(book, exchange, into: &out)
            return .accepted
        }
        let before = book
        // Quotes added to the configuration are recorded silently; dropped ones are forgotten.
        let covered = Set(book.quotes).intersection(quotes)
        book.markets = book.markets.filter { quotes.contains($0.value.quote) }
        for (id, market) in seen where !covered.contains(market.quote) && book.markets[id] == nil {
            book.markets[id] = ListingBook.Known(asset: market.asset, quote: market.quote, firstSeen: now)
        }
        book.quotes = settings.quotes
        let added = seen.keys.filter { book.markets[$0] == nil }.sorted()
        let removed = book.markets.keys.filter { seen[$0] == nil }.sorted()
        var confirmedRemovals = removed
        let sane = max(ListingBook.shrinkFloor, Int((Double(book.markets.count) * ListingBook.shrinkShare).rounded(.down)))
        if removed.count > sane, !Set(removed).isSubset(of: Set(book.unconfirmedRemovals ?? [])) {
            out.log(
                .warning,
                "\(exchange) market list lost \(removed.count) of \(book.markets.count) markets at once; held until the next poll confirms it",
                subject: exchange.rawValue)
            book.unconfirmedRemovals = removed
            confirmedRemovals = []
        } else {
            book.unconfirmedRemovals = nil
        }
        for id in added {
            guard let market = seen[id] else { continue }
            book.markets[id] = ListingBook.Known(asset: market.asset, quote: market.quote, firstSeen: now)
            notify(&book, exchange, market, firstSeen: now, status: ListingEvents.listed, context: context, into: &out)
        }
        for id in confirmedRemovals {
            guard let known = book.markets.removeValue(forKey: id) else { continue }
            let market = ListedMarket(market: id, asset: known.asset, quote: known.quote)
            notify(&book, exchange, market, firstSeen: known.firstSeen, status: ListingEvents.delisted, context: context, into: &out)
        }
        book.recent.removeAll { now.timeIntervalSince($0.at) > ListingBook.recentWindow }
        if book != before { store(book, exchange, into: &out) }
        return .accepted
    }

    private mutating func notify(
        _ book: inout ListingBook, _ exchange: ExchangeID, _ market: ListedMarket, firstSeen: Date, status: String,
        context: MachineContext, into out: inout EngineOutput
    ) {
        book.recent.append(ListingRecord(exchange: exchange.rawValue, market: market, firstSeen: firstSeen, status: status, at: context.now))
        out.publication.events.append(ListingEvents.event(
            id: context.makeID(), exchange: exchange, market: market, firstSeen: firstSeen, status: status, now: context.now))
    }

    private mutating func store(_ book: ListingBook, _ exchange: ExchangeID, into out: inout EngineOutput) {
        books[exchange] = book
        out.publication.states.append(StateRecord.encode(book, key: ListingBook.key(exchange), kind: ListingBook.kind))
    }

    /// A takeover (or the start): the books become the store's.
    mutating func adopt(_ restored: [String: ListingBook]) {
        books = [:]
        for (key, book) in restored { if let exchange = ListingBook.exchange(ofKey: key) { books[exchange] = book } }
    }

    /// Listings and delistings notified since `since`, newest first.
    func recent(since: Date) -> [ListingRecord] {
        books.values.flatMap(\.recent).filter { $0.at >= since }.sorted { ($0.at, $0.exchange, $0.market.market) > ($1.at, $1.exchange, $1.market.market) }
    }
}
