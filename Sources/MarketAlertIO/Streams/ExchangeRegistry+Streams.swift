import Foundation
import MarketAlertCore

extension ExchangeRegistry {
    /// The stream source for a configured exchange: only with `stream` on, a `stream_url` (given, or the
    /// default when `base_url` is not overridden) and a stream adapter. The WebSocket transport speaks the
    /// exchange folder's protocol description.
    package func makeStreamSource(_ settings: ExchangeSettings, context: StreamContext) -> (any StreamSource)? {
        guard settings.streamEnabled, let url = settings.streamURL, let stream = descriptors[settings.id]?.stream else { return nil }
        return Self.webSocketSource(stream, url: url, settings: settings, context: context)
    }

    private static func webSocketSource<P: ExchangeStreamProtocol>(
        _ protocolDescription: P, url: URL, settings: ExchangeSettings, context: StreamContext
    ) -> any StreamSource {
        // No rule reads this exchange's best bid/ask: its own channel for it stays unsubscribed.
        var protocolDescription = protocolDescription
        if !settings.bestBidAskWanted, let tickerOnly = protocolDescription.withoutBestBidAsk() { protocolDescription = tickerOnly }
        // A depth rule watches the exchange: books too, where its folder has a book adapter.
        if settings.booksWanted, let withBooks = protocolDescription.keepingBooks(levels: settings.depthLevels) {
            return WebSocketStreamSource(
                protocol: withBooks, url: url, staleAfter: settings.staleAfter, clock: context.clock,
                counters: context.counters(settings.id), logger: context.logger, depthLevels: settings.depthLevels,
                restBaseURL: settings.baseURL, bookFetcher: context.fetcher)
        }
        return WebSocketStreamSource(
            protocol: protocolDescription, url: url, staleAfter: settings.staleAfter, clock: context.clock,
            counters: context.counters(settings.id), logger: context.logger)
    }
}
