import Foundation
import MarketAlertCore
import MarketAlertKit

/// The watched markets of one stream and the latest known best bid, ask and last of each, merged across
/// channels (Binance `bookTicker` brings bid/ask, `ticker` the last price). A decoder finds a market by the
/// id bytes in a frame (`index(of:)`, no `String`), then `apply`s what the frame says; the runner turns the
/// markets a frame touched into `Quote`s. Fixed size after `init`: nothing is allocated per frame.
package struct StreamMarketTable: Sendable {
    package struct Entry: Sendable {
        package let pair: MarketPair
        /// The market id as it appears in frames (`BTCUSDT`, `BTC-USDT`, `KRW-BTC`, `BTC/USD`).
        package let market: String
        package let idBytes: [UInt8]
        package var bid: Price?
        package var ask: Price?
        package var last: Price?
        package var exchangeTime: Date?
        /// The update id of the last applied frame of the exchange's sequenced channel (Binance `bookTicker`
        /// `u`, Bybit `orderbook` `u`, Coinbase `ticker` `sequence`), and how many frames in a row since came
        /// with one that is not newer (see `admitSequence`).
        package var sequence: Int64?
        package var staleSequences = 0
        /// The market's order book at depth (nil: no `basis: depth` rule watches this exchange).
        package var book: OrderBook?
        /// The book's update numbering, for exchanges whose book stream is a diff stream (Binance `U`/`u`,
        /// Bybit `u`); see `BookSequence`.
        package var bookSequence = BookSequence()
        /// Diffs read while the book waits for its snapshot (each one length-prefixed), replayed by the
        /// decoder when the snapshot is seeded (`StreamMarketTable+Books.swift`).
        package var bookBuffer: [UInt8] = []
        /// A fresh snapshot of this book was asked for and not yet taken by the transport.
        package var bookRequested = false
        /// The connection whose diff last changed the book (a gap on another one is the reconnect's).
        package var bookConnection: UInt64 = 0
    }

    /// After this many frames in a row whose update id is not newer, the exchange is taken to have restarted
    /// its numbering (a service restart without a snapshot): the next one is applied and its id kept.
    package static let sequenceRestartAfter = 100

    package internal(set) var entries: [Entry]
    /// FNV-1a of the id bytes → entry index; a hash shared by two ids maps to -1 (then a linear search).
    private let byHash: [UInt64: Int]
    /// Entries changed by the current frame.
    package private(set) var touched: [Int] = []
    /// Memory a decoder keeps between frames, at its working size after the first ones (HTX inflates each
    /// gzip frame into it); empty for the exchanges that need none. A decoder swaps it out while it writes
    /// the table and back when done.
    package var scratch: [UInt8] = []
    /// The connection the frame being decoded came from (the intake sets it; 0 outside the daemon's path).
    package var connection: UInt64 = 0
    /// Books thrown away (or never seeded) whose fresh snapshot the transport must fetch or ask for
    /// (`requestBookSnapshot`, `takeBookRequests`); empty for tables without books.
    package internal(set) var bookRequests: [BookSnapshotRequest] = []
    /// Channel numbers the exchange gave markets when it acknowledged them, per connection (Bitfinex's data
    /// frames name a `chanId`, not the market); empty for the other exchanges.
    private var channels: [ChannelKey: Int] = [:]

    private struct ChannelKey: Hashable, Sendable {
        var connection: UInt64
        var channel: Int64
    }

    /// `marketID` gives each pair's id as the exchange writes it in frames; `depthLevels` (v3, for
    /// `basis: depth` rules) gives every market an order book of that many levels.
    package init(pairs: Set<MarketPair>, marketID: (MarketPair) -> String, depthLevels: Int? = nil) {
        var entries: [Entry] = []
        var byHash: [UInt64: Int] = [:]
        for pair in pairs.sorted(by: { $0.description < $1.description }) {
            let market = marketID(pair)
            let bytes = Array(market.utf8)
            let hash = bytes.withUnsafeBytes(Self.hash)
            byHash[hash] = byHash[hash] == nil ? entries.count : -1
            var entry = Entry(pair: pair, market: market, idBytes: bytes)
            if let depthLevels { entry.book = OrderBook(levels: depthLevels) }
            entries.append(entry)
        }
        self.entries = entries
        self.byHash = byHash
        touched.reserveCapacity(entries.count)
    }

    package var markets: [String] { entries.map(\.market) }

    /// The entry whose id is exactly `bytes`, if watched.
    package func index(of bytes: UnsafeRawBufferPointer) -> Int? {
        guard let found = byHash[Self.hash(bytes)] else { return nil }
        if found >= 0 { return entries[found].idBytes.elementsEqual(bytes) ? found : nil }
        return entries.firstIndex { $0.idBytes.elementsEqual(bytes) }
    }

    /// Records that `channel` carries entry `index` on the current connection.
    package mutating func bindChannel(_ channel: Int64, to index: Int) {
        channels[ChannelKey(connection: connection, channel: channel)] = index
    }

    /// The entry `channel` carries on the current connection, if the exchange bound it.
    package func index(ofChannel channel: Int64) -> Int? {
        channels.isEmpty ? nil : channels[ChannelKey(connection: connection, channel: channel)]
    }

    /// Forgets the channels of every connection not in `open` (closed connections' numbers mean nothing).
    package mutating func forgetChannels(except open: [UInt64]) {
        guard channels.contains(where: { !open.contains($0.key.connection) }) else { return }
        channels = channels.filter { open.contains($0.key.connection) }
    }

    /// Starts a frame: forgets which entries the previous frame touched.
    package mutating func beginFrame() { touched.removeAll(keepingCapacity: true) }

    /// Records what a frame says about entry `index`; nil fields leave the entry's value as it was.
    package mutating func apply(_ index: Int, bid: Price? = nil, ask: Price? = nil, last: Price? = nil, exchangeTime: Date? = nil) {
        if let bid { entries[index].bid = bid }
        if let ask { entries[index].ask = ask }
        if let last { entries[index].last = last }
        entries[index].exchangeTime = exchangeTime
        if !touched.contains(index) { touched.append(index) }
    }

    /// Whether an update numbered `sequence` for entry `index` may be applied: only when it is newer than the
    /// last one applied (an out-of-order or repeated frame would move the book back), unless `restart` (a
    /// snapshot, which starts the numbering over). Records it when admitted.
    package mutating func admitSequence(_ sequence: Int64, restart: Bool = false, at index: Int) -> Bool {
        if !restart, let held = entries[index].sequence, sequence <= held {
            entries[index].staleSequences += 1
            guard entries[index].staleSequences >= Self.sequenceRestartAfter else { return false }
        }
        entries[index].sequence = sequence
        entries[index].staleSequences = 0
        return true
    }

    /// Runs `body` on entry `index`'s order book in place (nil when the table keeps no books).
    package mutating func updateBook<T>(_ index: Int, _ body: (inout OrderBook) -> T) -> T? {
        entries[index].book?.mutate(body)
    }

    /// Forgets one or both sides of entry `index`'s book (the exchange said the side is empty).
    package mutating func clear(_ index: Int, bid: Bool, ask: Bool) {
        if bid { entries[index].bid = nil }
        if ask { entries[index].ask = nil }
    }

    /// The merged quote of entry `index`, received at `receivedAt`, transport `.stream`.
    package func quote(_ index: Int, exchange: ExchangeID, receivedAt: Date) -> Quote {
        let entry = entries[index]
        var quote = Quote(
            exchange: exchange, market: entry.market, base: entry.pair.base, quote: entry.pair.quote,
            last: entry.last, bid: entry.bid, ask: entry.ask, exchangeTime: entry.exchangeTime,
            receivedAt: receivedAt, transport: .stream)
        quote.depth = entry.book
        return quote
    }

    package static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
