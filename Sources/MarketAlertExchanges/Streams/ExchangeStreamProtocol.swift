import Foundation
import MarketAlertCore
import MarketAlertKit

/// What one exchange's public WebSocket expects and sends: the subscription messages, how acks and errors
/// look, the keepalive, limits, and a byte-level decoder from frames to market updates. One per exchange,
/// in its folder (`Exchanges/<Name>/<Name>Stream.swift`); `WebSocketStreamSource` runs any of them.
package protocol ExchangeStreamProtocol: Sendable {
    var exchange: ExchangeID { get }
    var keepalive: StreamKeepalive { get }
    /// The text of the client ping when `keepalive.ping == .message` (`ping`, `{"op":"ping"}`).
    var pingMessage: String { get }
    /// The server closes connections at this age (Binance 24 h), or nil.
    var lifetime: Duration? { get }
    /// Limit on client messages per connection, or nil.
    var outboundLimit: OutboundPacer? { get }
    /// A floor for reconnect delays (exchanges that refuse rapid connection attempts).
    var reconnectFloor: Duration { get }
    /// Where a connection's endpoint comes from when the exchange hands it out over REST (KuCoin); nil: the
    /// configured URL.
    var endpointRequest: StreamEndpointRequest? { get }
    /// The most markets one connection may carry, from the exchange's documented limit on channels (topics,
    /// streams) per connection divided by the channels each market takes in `subscription(for:)` (books
    /// included when `keepingBooks` adds them); nil (the default): no documented limit. More markets than
    /// this are spread over several connections (`WebSocketStreamSource`).
    var maxMarketsPerConnection: Int? { get }
    /// The market id as it appears in frames.
    func marketID(_ pair: MarketPair) -> String
    /// The messages to send after the handshake for the watched markets, and the acks that must follow.
    func subscription(for markets: [String]) -> StreamSubscription
    /// Decodes one frame (text or binary; the same bytes either way). Market data goes into `table`
    /// (after `table.beginFrame()` by the caller); the result says what kind of frame it was.
    func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame
    /// v3, for `basis: depth` rules: this protocol configured to also stream each market's order book, `levels`
    /// deep, into the table's books (`StreamMarketTable+Books.swift`) with the exchange's integrity rule; nil
    /// (the default) while the exchange has no book adapter, so its depth rules see no book from it.
    func keepingBooks(levels: Int) -> Self?
    /// This protocol without the channel of its own that carries the best bid/ask (Binance `@bookTicker`,
    /// Bybit `orderbook.1`, HTX `bbo`, Gate `spot.book_ticker`, Upbit's and Bithumb's `orderbook`), for
    /// exchanges no `mid`/`bidask` rule reads: the ticker alone brings what `basis: last` needs, and on a busy
    /// market the best bid/ask channel is by far the chattiest. nil (the default): the exchange has no such
    /// channel, its ticker carries everything.
    func withoutBestBidAsk() -> Self?
    /// v3: how a book the decoder threw away (`StreamMarketTable.requestBookSnapshot`) is rebuilt. The
    /// default, `.reconnect`, opens a fresh connection whose subscriptions bring every book anew.
    var bookResync: StreamBookResync { get }
    /// v3, for `.restSnapshot`: seeds entry `index`'s book from the exchange's REST answer `body` (then
    /// replays the diffs buffered meanwhile). False when the answer is not a usable snapshot.
    func seedBook(_ body: UnsafeRawBufferPointer, at index: Int, into table: inout StreamMarketTable, receivedAt: Date) -> Bool
}

/// A stream whose best bid/ask has a channel of its own: `withoutBestBidAsk` leaves it out.
package protocol BestBidAskChannel: ExchangeStreamProtocol {
    /// Whether that channel is subscribed (true until `withoutBestBidAsk`). Where the kit keeps books, they
    /// decide its channels instead.
    var streamsBestBidAsk: Bool { get set }
}

extension BestBidAskChannel {
    package func withoutBestBidAsk() -> Self? {
        var configured = self
        configured.streamsBestBidAsk = false
        return configured
    }
}

/// How the transport rebuilds a book (v3): the smallest generic step that brings a fresh snapshot.
package enum StreamBookResync: Sendable {
    /// Open a replacement connection (make-before-break, as for a server's shutdown notice): its
    /// subscriptions bring a fresh snapshot of every book.
    case reconnect
    /// Send these messages on the serving connection (e.g. unsubscribe and subscribe that market's book:
    /// the exchange answers a subscription with a snapshot).
    case resubscribe(@Sendable (_ market: String) -> [String])
    /// GET `path(market)` (path and query) under the exchange's REST base URL and hand the body to
    /// `seedBook` (Binance's `/api/v3/depth`); retried with backoff while it fails.
    case restSnapshot(path: @Sendable (_ market: String) -> String)
}

extension ExchangeStreamProtocol {
    package var pingMessage: String { "ping" }
    package var lifetime: Duration? { nil }
    package var outboundLimit: OutboundPacer? { nil }
    package var reconnectFloor: Duration { .zero }
    package var endpointRequest: StreamEndpointRequest? { nil }
    package var maxMarketsPerConnection: Int? { nil }
    package func keepingBooks(levels: Int) -> Self? { nil }
    package func withoutBestBidAsk() -> Self? { nil }
    package var bookResync: StreamBookResync { .reconnect }
    package func seedBook(_ body: UnsafeRawBufferPointer, at index: Int, into table: inout StreamMarketTable, receivedAt: Date) -> Bool {
        false
    }
}

/// The subscription plan for one connection.
package struct StreamSubscription: Sendable, Equatable {
    package var messages: [String]
    /// Ack keys that must all arrive (each protocol defines its own, e.g. `id:1`, `tickers:BTC-USDT`).
    package var acks: Set<String>
    /// The exchange never acknowledges: the first market data frame proves the subscription.
    package var liveOnFirstData: Bool
    /// How an in-band refusal of a market lands. False (OKX, Bitget, Kraken: one ack or error per market):
    /// only that market is refused, and `subscription(for: [market]).acks` are the acks that will not come.
    /// True (Bybit, Coinbase): the exchange refuses the whole message; `parts` says which markets each
    /// message carried, so the others can be asked for again on the same connection.
    package var refusesWholeMessage: Bool
    /// The markets of each message, in the order of `messages` (needed only when `refusesWholeMessage`).
    package var parts: [[String]]

    package init(
        messages: [String], acks: Set<String>, liveOnFirstData: Bool = false, refusesWholeMessage: Bool = false,
        parts: [[String]] = []
    ) {
        self.messages = messages
        self.acks = acks
        self.liveOnFirstData = liveOnFirstData
        self.refusesWholeMessage = refusesWholeMessage
        self.parts = parts
    }
}

/// What a frame was.
package enum StreamFrame: Sendable, Equatable {
    /// Market data, applied to the watched markets in `table.touched`.
    case data
    /// Well-formed market data for a market that is not watched (ignored; does not count as fresh).
    case unwatched
    /// Subscription acknowledgements (`complete`: the exchange's whole answer, see `StreamConnectionEvent`).
    case acked(keys: [String], complete: Bool)
    /// An in-band error (refused subscription, invalid request). `markets`: what the exchange says does not
    /// exist (words of its error text; the runner keeps only watched market ids, drops those markets from
    /// the next subscription and leaves them to REST).
    case rejected(reason: String, markets: [String] = [])
    /// A pong, heartbeat or status message: the transport is alive.
    case heartbeat
    /// The server's own keepalive, to be answered on the same connection with this text (HTX `{"ping":N}`
    /// wants `{"pong":N}`): the transport is alive.
    case reply(String)
    /// The server will close this connection soon.
    case shutdownNotice
    /// A known message of no interest.
    case ignored
    /// Unusable; counted and dropped, never a quote.
    case dropped(StreamDropReason)
}

package enum StreamDropReason: String, Sendable, CaseIterable {
    /// Not JSON, truncated, or not the shape the exchange documents.
    case malformed
    /// A price that is zero, negative, NaN, infinite or unparsable.
    case invalidPrice
    /// Best bid above best ask.
    case crossedBook
    /// Larger than the decode limit.
    case oversized
    /// Well-formed JSON of a kind the protocol does not know.
    case unknownMessage
    /// An update whose sequence number is not newer than the last one applied to its market.
    case outOfOrder
}

/// Reading market ids out of an exchange's "does not exist" error text.
package enum StreamRefusal {
    /// The words of `text` that could be market ids (letters, digits, `-`, `/`, `_`), e.g. `XYZ-USDT` out of
    /// `channel:tickers,instId:XYZ-USDT doesn't exist` or `XYZUSDT` out of `Invalid symbol :[tickers.XYZUSDT]`.
    package static func candidates(in text: String) -> [String] {
        text.split { character in
            !(character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "/" || character == "_"))
        }.map(String.init)
    }
}
