import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bithumb public WebSocket (`wss://ws-api.bithumb.com/websocket/v1`), which follows Upbit's: one request
/// with `ticker` and `orderbook` (`KRW-BTC.1`) for every watched market, `QUOTE-BASE` codes, no
/// acknowledgement, errors as `{"error":{"name":…,"message":…}}`, full (`DEFAULT`) keys. Frames may be
/// text or binary. `timestamp` is in milliseconds in ticker frames and in microseconds in orderbook frames
/// (read by its size, see `UpbitStyleFrames.TimeUnit`). Keepalive: a WebSocket ping every 30 s. Bithumb limits connection requests to 10 per
/// second per IP. Where no rule reads the best bid/ask (`withoutBestBidAsk`), `orderbook` is left out.
package struct BithumbStream: BestBidAskChannel {
    package let ticket: String
    /// v3 books: the orderbook units asked for per push (`KRW-BTC.15`), nil: the best level only. Bithumb's
    /// v1 WebSocket copies Upbit's `{code}.{count}` codes (its docs' example asks `KRW-ETH.3`); every push is
    /// a full snapshot of that many units, so no sequence is kept and nothing needs a resync.
    package private(set) var bookUnits: Int?
    /// Whether `orderbook` is subscribed without books (its best level: the quote's bid and ask). False where
    /// no rule reads them (`withoutBestBidAsk`): the ticker alone, the last price.
    package var streamsBestBidAsk = true

    package init(ticket: String = "marketalertd-\(UUID().uuidString.lowercased())") { self.ticket = ticket }

    /// Books of `levels` levels: the smallest of Upbit's unit counts (1, 5, 15, 30) that covers them, at most
    /// 30 (the units Bithumb's REST orderbook gives as well).
    package func keepingBooks(levels: Int) -> BithumbStream? {
        var configured = self
        configured.bookUnits = [1, 5, 15, 30].first { $0 >= levels } ?? 30
        return configured
    }

    /// Bithumb takes every code in one request and its docs found state no limit per connection:
    /// `maxMarketsPerConnection` stays nil, one connection.
    package var exchange: ExchangeID { .bithumb }
    package var keepalive: StreamKeepalive { .clientPings(.protocolFrame, every: .seconds(30), window: .seconds(45)) }
    package var reconnectFloor: Duration { .seconds(1) }

    /// `KRW-BTC` (the WebSocket spells markets like Upbit, not like the public REST API's `BTC_KRW`).
    package func marketID(_ pair: MarketPair) -> String { "\(pair.quote)-\(pair.base)".uppercased() }

    package func subscription(for markets: [String]) -> StreamSubscription {
        UpbitStyleFrames.subscription(ticket: ticket, markets: markets, format: "DEFAULT", bookUnits: bookUnits ?? (streamsBestBidAsk ? 1 : nil))
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        UpbitStyleFrames.decode(frame, into: &table, time: .millisecondsOrMicroseconds)
    }
}
