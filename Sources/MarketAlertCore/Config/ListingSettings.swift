import Foundation

/// v3 `listings:`: which exchanges' market lists are watched for new and removed markets, in which quote
/// currencies, and how often they are fetched.
package struct ListingSettings: Sendable, Equatable {
    package var exchanges: [ExchangeID]
    package var quotes: [String]
    package var pollInterval: Duration = .seconds(60)

    package init(exchanges: [ExchangeID], quotes: [String], pollInterval: Duration = .seconds(60)) {
        self.exchanges = exchanges
        self.quotes = quotes
        self.pollInterval = pollInterval
    }

    /// The shortest `poll_interval`: a market list is one request per exchange, but a big one.
    package static let minimumPollInterval: Duration = .seconds(10)

    static func read(_ t: ConfigTable, loopbackOnly: (ExchangeID) -> Bool) -> ListingSettings? {
        let names = t.required("exchanges", t.stringList)
        let quotes = t.required("quotes", t.stringList)?.map { $0.uppercased() }
        let interval = t.duration("poll_interval")
        if names?.isEmpty == true { t.error("exchanges", "must list at least one exchange") }
        if let names, Set(names).count != names.count { t.error("exchanges", "lists an exchange twice") }
        if quotes?.isEmpty == true { t.error("quotes", "must list at least one quote currency") }
        guard let names, let quotes, !names.isEmpty, !quotes.isEmpty else { return nil }
        var settings = ListingSettings(exchanges: names.map { ExchangeID($0.lowercased()) }, quotes: quotes)
        if let interval {
            let local = settings.exchanges.allSatisfy(loopbackOnly)
            if interval <= .zero {
                t.error("poll_interval", "must be greater than 0")
            } else if interval < minimumPollInterval && !local {
                t.error("poll_interval", "must be at least 10s (a market list is large; exchanges limit how often it is asked for)")
            } else {
                settings.pollInterval = interval
            }
        }
        return settings
    }
}

extension Settings {
    /// `listings:` (read after `exchanges:`, whose base URLs decide whether a short interval is a test's).
    mutating func readListings(_ root: ConfigTable) {
        guard let table = root.table("listings") else { return }
        let exchanges = self.exchanges
        listings = ListingSettings.read(table) { id in exchanges[id]?.baseURL.isLoopback ?? false }
        table.finish()
        guard let listings else { return }
        for (index, exchange) in listings.exchanges.enumerated() {
            let path = "listings.exchanges[\(index)]"
            guard let settings = exchanges[exchange] else {
                table.diagnosticsSink.error(path, "exchange \"\(exchange.rawValue)\" is not configured under exchanges", at: nil)
                continue
            }
            if !settings.enabled {
                table.diagnosticsSink.warning(path, "exchange \"\(exchange.rawValue)\" is disabled; its listings are not watched")
            }
        }
    }
}
