import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The depth-streaming run's exchanges: the round-2 eight on their local WebSocket servers (`StreamFeeds`:
/// each its wire kit's persona, acking the daemon's book subscriptions), every watched market fed depth
/// messages (`DepthFrames`) at `rate` a second, Binance's `/api/v3/depth` snapshot and Coinbase's
/// `/products/<id>/book` served from the mock REST server, consistent with what was pushed.
///
/// Coinbase's books are REST-polled by the daemon (its `level2` channel needs authentication): its stream gets
/// `ticker` frames at the same rate (they drive the polls), its books come from the route.
///
/// One market is the latency market: Bithumb's first asset, whose book is raised 3% for one second and lowered
/// for the next, each flip's push stamped (`flips`), so the `basis: depth` rule fires and resolves once a second.
/// (Bithumb, not Upbit: Upbit also lists USDT markets for the first assets, and its raised KRW book did not
/// move the executable premium in a trial run; not investigated here.)
final class DepthFeeds: Sendable {
    enum Pattern: String, Sendable {
        /// Each exchange's markets spread evenly over each 100 ms (one message every 2 ms per exchange, the
        /// exchanges staggered; timed to 1 ms slots).
        case spread
        /// Each exchange's markets together on its 100 ms tick, written back to back and flushed once (as
        /// Binance's `@depth@100ms` emits every market's diff on the same tick); the exchanges' ticks staggered.
        case grouped
    }

    let streams: StreamFeeds
    let bench: BenchMarkets
    let pattern: Pattern
    let rate: Int
    /// Per feed (as `streams.feeds`), per asset.
    let markets: [[DepthFrames.Market]]
    let latencyExchange = ExchangeID.bithumb
    let latencyAsset: String
    /// The last update pushed per market (feed × assets + asset); Binance's snapshot route reads it.
    private let updates: UpdateCounts
    private let pushed = Mutex<[ExchangeID: Int]>([:])
    /// Monotonic nanoseconds of each push that flipped the latency market, and the status it should cause.
    let flips = Mutex<[(at: UInt64, status: String)]>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(markets bench: BenchMarkets, apis: MockExchangeAPIs, pattern: Pattern, rate: Int) async throws {
        streams = try await StreamFeeds(markets: bench, exchanges: BenchOptions.roundTwo)
        self.bench = bench
        self.pattern = pattern
        self.rate = rate
        let latencyAsset = bench.assets.first ?? "BTC"
        self.latencyAsset = latencyAsset
        let latencyExchange = ExchangeID.bithumb
        markets = streams.feeds.map { feed in
            bench.assets.map { asset in
                DepthFrames.Market(
                    exchange: feed.exchange, symbol: feed.marketID(MarketPair(base: asset, quote: feed.quote)), usdPrice: bench.usdPrice(asset),
                    quote: feed.quote, latency: feed.exchange == latencyExchange && asset == latencyAsset)
            }
        }
        updates = UpdateCounts(markets.count * bench.assets.count)
        let assetCount = bench.assets.count
        if let binance = streams.feeds.firstIndex(where: { $0.exchange == .binance }) {
            let bySymbol = Dictionary(uniqueKeysWithValues: markets[binance].enumerated().map { ($0.element.symbol, $0.offset) })
            let books = markets[binance]
            let updates = updates
            apis.server.route("/api/v3/depth") { request in
                let symbol = (request.query ?? "").split(separator: "&").first { $0.hasPrefix("symbol=") }.map { String($0.dropFirst(7)) }
                guard let symbol, let index = bySymbol[symbol] else { return .json(#"{"code":-1121,"msg":"Invalid symbol."}"#, status: 400) }
                // The book after the last update pushed: the diffs after it follow it (`U` = lastUpdateId + 1).
                return .json(DepthFrames.binanceSnapshot(books[index], lastUpdateId: updates.last(binance * assetCount + index)))
            }
        }
        if let coinbase = streams.feeds.firstIndex(where: { $0.exchange == .coinbase }) {
            let sequence = Atomic<Int>(1)
            for market in markets[coinbase] {
                apis.server.route("/products/\(market.symbol)/book") { _ in
                    .json(DepthFrames.coinbaseBook(market, sequence: sequence.add(1, ordering: .relaxed).newValue))
                }
            }
        }
    }

    var pushedCounts: [ExchangeID: Int] { pushed.withLock { $0 } }

    /// What each exchange sends on subscribing (Bybit, OKX, Bitget, Kraken: the book's snapshot).
    func sendSnapshots() {
        for (position, feed) in streams.feeds.enumerated() {
            for (index, market) in markets[position].enumerated() {
                guard let text = DepthFrames.snapshot(market) else { continue }
                send(feed, asset: bench.assets[index], [text])
            }
        }
    }

    /// Starts the feeder thread: every market `rate` messages a second in `pattern` until `stop()`.
    func start() {
        let thread = Thread { [self] in
            feed()
            finished.signal()
        }
        thread.name = "depth-feeder"
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
    }

    func shutdown() async { await streams.shutdown() }

    // MARK: Feeding

    private func feed() {
        let assets = bench.assets
        let cycle = UInt64(1_000_000_000 / rate)
        let feeds = streams.feeds
        // The offset of each market's message in the cycle, gathered into slots.
        var slots: [UInt64: [(feed: Int, asset: Int)]] = [:]
        for f in feeds.indices {
            for a in assets.indices {
                let offset: UInt64 = switch pattern {
                case .grouped: UInt64(f) * cycle / UInt64(feeds.count)
                case .spread:
                    (UInt64(a) * cycle / UInt64(assets.count) + UInt64(f) * cycle / UInt64(assets.count * feeds.count)) / 1_000_000 * 1_000_000
                }
                slots[offset, default: []].append((f, a))
            }
        }
        let schedule = slots.sorted { $0.key < $1.key }
        let latencyFeed = feeds.firstIndex { $0.exchange == latencyExchange }
        let latencyIndex = assets.firstIndex(of: latencyAsset)
        var high = false
        var counts = [Int](repeating: 0, count: feeds.count)
        let start = Monotonic.now() + 10_000_000
        var round: UInt64 = 0
        while !stopped.load(ordering: .relaxed) {
            for (offset, due) in schedule {
                Monotonic.sleep(until: start + round * cycle + offset)
                if stopped.load(ordering: .relaxed) { break }
                var batch: [(feed: Int, asset: Int, text: String)] = []
                batch.reserveCapacity(due.count)
                for (f, a) in due {
                    let n = updates.next(f * assets.count + a)
                    let isLatency = f == latencyFeed && a == latencyIndex
                    let raise = isLatency && (n / rate) % 2 == 1
                    let text = feeds[f].exchange == .coinbase
                        ? TickerFrames.frame(.coinbase, symbol: markets[f][a].symbol, quote: feeds[f].quote, usdPrice: bench.usdPrice(assets[a]), tick: n) ?? ""
                        : DepthFrames.update(markets[f][a], n, high: raise)
                    if isLatency, raise != high {
                        high = raise
                        // Stamped as it is handed to the server (the push itself is in the measured time).
                        send(feeds[f], asset: assets[a], [text])
                        flips.withLock { $0.append((Monotonic.now(), high ? "firing" : "resolved")) }
                        counts[f] += 1
                        continue
                    }
                    batch.append((f, a, text))
                    counts[f] += 1
                }
                if pattern == .grouped {
                    // One write per connection of each exchange due now.
                    var groups: [Int: (feed: Int, asset: String, texts: [String])] = [:]
                    for item in batch {
                        let target = streams.connection(feeds[item.feed], asset: assets[item.asset]) ?? -1
                        groups[item.feed * 1_000_000 + target, default: (item.feed, assets[item.asset], [])].texts.append(item.text)
                    }
                    for group in groups.values { send(feeds[group.feed], asset: group.asset, group.texts) }
                } else {
                    for item in batch { send(feeds[item.feed], asset: assets[item.asset], [item.text]) }
                }
            }
            round += 1
            if round % UInt64(rate) == 0 {
                let snapshot = counts
                pushed.withLock { totals in for (f, count) in snapshot.enumerated() { totals[feeds[f].exchange] = count } }
            }
        }
        let snapshot = counts
        pushed.withLock { totals in for (f, count) in snapshot.enumerated() { totals[feeds[f].exchange] = count } }
    }

    /// Pushes `texts` on the connection that subscribed `asset` (several: back to back, one flush).
    private func send(_ feed: StreamFeeds.Feed, asset: String, _ texts: [String]) {
        let target = streams.connection(feed, asset: asset)
        // Back to back where the exchange sends text (Upbit's binary frames go one by one).
        if texts.count > 1, case .text = feed.encode(texts[0]) {
            feed.server.pushTogether(texts, to: target)
            return
        }
        for text in texts {
            switch feed.encode(text) {
            case .text(let text): feed.server.push(text, to: target)
            case .binary(let data): feed.server.push(binary: data, to: target)
            }
        }
    }
}

/// The last update pushed per market (the feeder counts on, Binance's snapshot route reads).
final class UpdateCounts: Sendable {
    private let counts: Mutex<[Int]>

    init(_ markets: Int) { counts = Mutex([Int](repeating: 0, count: markets)) }

    func next(_ market: Int) -> Int {
        counts.withLock { counts in
            counts[market] += 1
            return counts[market]
        }
    }

    func last(_ market: Int) -> Int { counts.withLock { $0[market] } }
}

/// CLOCK_MONOTONIC in nanoseconds, and an absolute sleep on it (the feeder's schedule, the latency stamps).
enum Monotonic {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func sleep(until deadline: UInt64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
