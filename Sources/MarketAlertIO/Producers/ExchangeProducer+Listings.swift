import Foundation
import Logging
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit

/// Watched markets the exchange did not list when the stream started (a rule's `quotes: [KRW, USDT]` on an
/// exchange with one of them, or a coin awaited on a Korean exchange). They are left out of the subscription,
/// since the exchange would refuse them; the exchange's market list is read every `listingCheck` while any
/// remain, and once it shows some of them the stream starts again with them (one reconnect per listing).
extension ExchangeProducer {
    /// Runs `stream` over `initial`, restarting it with the markets the exchange lists later, until cancelled.
    func runStream(_ stream: any StreamSource, from initial: Set<MarketPair>, into inbox: EngineInbox, coverage: StreamCoverage) async {
        let exchange = poller.exchange
        var streamed = initial
        // Markets in quote currencies the exchange has none in: not awaited (`watchListing`), across restarts.
        var givenUp: Set<MarketPair> = []
        while !Task.isCancelled {
            let unlisted = pairs.subtracting(streamed).subtracting(givenUp)
            let current = streamed
            let found: ListingFound? = await withTaskGroup(of: ListingFound?.self) { group in
                group.addTask {
                    await stream.run(pairs: current) { update in Self.forward(update, from: exchange, to: inbox, coverage: coverage) }
                    return nil
                }
                if let marketList, !unlisted.isEmpty {
                    group.addTask { await watchListing(of: unlisted, in: marketList) }
                }
                // The stream runs until cancelled; the watch ends when some of the markets are listed.
                for await result in group {
                    guard let result else { continue }
                    group.cancelAll()
                    return result
                }
                return nil
            }
            guard let found, !Task.isCancelled else { return }
            logger?.info("stream: markets the exchange lists now join the stream; it reconnects", metadata: [
                "source": "\(exchange.rawValue)", "markets": "\(found.listed.map(\.description).sorted().joined(separator: ","))"])
            streamed.formUnion(found.listed)
            givenUp.formUnion(found.givenUp)
            // The next stream tells REST afresh what it does not carry (it reports only changes).
            coverage.update { $0.restOnly = [] }
        }
    }

    /// What a listing watch found: the markets listed now, and those it gave up on before (their quote
    /// currency is not traded on the exchange), which the next watch leaves out.
    struct ListingFound: Sendable {
        var listed: Set<MarketPair>
        var givenUp: Set<MarketPair>
    }

    /// Reads the market list every `listingCheck` until it shows some of `unlisted`, and returns those (nil:
    /// cancelled, or nothing left worth watching). A market in a quote currency the exchange has no market
    /// in at all (KRW on a global exchange, for a rule's `quotes: [KRW, USDT]`) is not awaited: it stops
    /// being watched after the first read. A list that cannot be read is tried again at the next check.
    func watchListing(of unlisted: Set<MarketPair>, in list: any MarketListSource) async -> ListingFound? {
        let label = ClockLabel.poll("\(poller.exchange.rawValue) market list")
        var awaited = unlisted
        while true {
            do { try await poller.clock.sleep(for: listingCheck, label: label) } catch { return nil }
            switch await list.pollMarkets() {
            case .success(let markets):
                let quotes = Set(markets.lazy.map(\.quote))
                let dropped = awaited.filter { !quotes.contains($0.quote) }
                if !dropped.isEmpty {
                    awaited.subtract(dropped)
                    logger?.info("stream: the exchange has no market in these quote currencies; not watched for a listing", metadata: [
                        "source": "\(poller.exchange.rawValue)", "markets": "\(dropped.map(\.description).sorted().joined(separator: ","))"])
                }
                let listed = Self.newlyListed(awaited, in: markets)
                if !listed.isEmpty { return ListingFound(listed: listed, givenUp: unlisted.subtracting(awaited)) }
                if awaited.isEmpty { return nil }
            case .failure(let error):
                logger?.debug("stream: the market list could not be read; unlisted markets are checked again later", metadata: [
                    "source": "\(poller.exchange.rawValue)", "error": "\(error.message)"])
            }
        }
    }

    /// The markets of `unlisted` that `markets` lists.
    static func newlyListed(_ unlisted: Set<MarketPair>, in markets: [ListedMarket]) -> Set<MarketPair> {
        unlisted.intersection(markets.lazy.map { MarketPair(base: $0.asset, quote: $0.quote) })
    }
}

