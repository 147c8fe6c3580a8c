import CAllocationCounter
import Foundation
import MarketAlertCore
import MarketAlertIO
import NIOCore

/// v3 (#27): heap allocations per depth message on the daemon's whole path, after warm-up, as the depth
/// daemon runs it: each exchange's book messages (`DepthFrames`, its wire shape) decoded by `StreamIntake`
/// into the market table, handed on at `flush` to `EngineCore`, which copies the book into its quote book
/// and evaluates the one `basis: depth` rule over the assets the message feeds. `FrameAllocationBenchmark`
/// counts the same path for ticker frames; this one adds the books, their copy into the quote book, and the
/// executable premium. Budget: 0 (hot paths allocate nothing per message).
enum DepthFrameAllocationBenchmark {
    /// Exchanges whose books need no REST seed (a snapshot on the stream, or every push whole).
    static let exchanges: [ExchangeID] = [.bybit, .okx, .upbit]
    static let levels = 20
    /// Rounds of one message per market: the first two warm up (a Korean push's units alternate between two
    /// shapes, and each shape's first push sizes the kept book's storage once), the rest are counted.
    static let warmUpRounds = 2
    static let rounds = 6

    static func run(markets: BenchMarkets) -> (String, [Verdict]) {
        guard allocation_counter_available() != 0 else { return ("depth allocations: not countable on this platform", []) }
        let start = Date()
        let core = EngineCore(engine: settledEngine(assets: markets.assets, at: start), clock: SystemClock())
        let link = StreamLinkID(1)
        // Every exchange's intake first, fed its snapshots: the rule's books are all synced before counting.
        var feeds: [(exchange: ExchangeID, intake: StreamIntake, markets: [DepthFrames.Market])] = []
        for exchange in exchanges {
            guard let stream = ExchangeRegistry.standard[exchange]?.stream?.keepingBooks(levels: levels) else { continue }
            let quote = exchange == .upbit ? "KRW" : "USDT"
            let pairs = markets.assets.map { MarketPair(base: $0, quote: quote) }
            let intake = StreamIntake(
                decoder: stream, table: StreamMarketTable(pairs: Set(pairs), marketID: stream.marketID, depthLevels: levels),
                clock: SystemClock(), counters: StreamCounters()
            ) { update in
                if case .quotes(let quotes) = update { _ = core.decideQuotes(quotes, from: exchange) }
            }
            intake.accept([StreamConnectionStateMachine.OpenLink(id: link, live: true)])
            let fed = zip(pairs, markets.assets).map { pair, asset in
                DepthFrames.Market(
                    exchange: exchange, symbol: stream.marketID(pair),
                    usdPrice: markets.usdPrice(asset) * (quote == "KRW" ? BenchMarkets.usdKRW : 1), quote: quote, latency: false)
            }
            for market in fed {
                guard let snapshot = DepthFrames.snapshot(market) else { continue }
                _ = intake.take(ByteBuffer(string: snapshot), compressed: false, from: link)
                intake.flush()
            }
            feeds.append((exchange, intake, fed))
        }
        // Messages are made before counting (making them allocates): update n of every market, exchanges
        // interleaved as their streams are.
        let sets: [[(feed: Int, message: ByteBuffer)]] = (0..<rounds).map { round in
            (0..<markets.assets.count).flatMap { index in
                feeds.indices.map { feed in (feed, ByteBuffer(string: DepthFrames.update(feeds[feed].markets[index], round + 1))) }
            }
        }
        // Counted per exchange and round (a count that falls to 0 after the first rounds is warm-up, not a
        // cost per message).
        var counted = [[UInt64]](repeating: [UInt64](repeating: 0, count: rounds), count: feeds.count)
        for round in 0..<rounds {
            for (feed, message) in sets[round] {
                allocation_counter_start()
                _ = feeds[feed].intake.take(message, compressed: false, from: link)
                feeds[feed].intake.flush()
                counted[feed][round] += allocation_counter_stop()
            }
        }
        let allocations = counted.reduce(0) { $0 + $1.dropFirst(warmUpRounds).reduce(0, +) }
        let messages = sets.dropFirst(warmUpRounds).reduce(0) { $0 + $1.count }
        // The rule must have priced from the books, or the count is of something else.
        let priced = core.read { engine in engine.premiumTable().filter { $0.observation?.executable != nil }.count }
        var text = String(
            format: "  depth messages (%@, 50 assets, one basis: depth rule) → intake → engine, after %d warm-up rounds: %d messages, %llu allocations, %.2f per message; %d assets priced from the books\n",
            feeds.map(\.exchange.rawValue).joined(separator: ", "), warmUpRounds, messages, allocations, Double(allocations) / Double(max(messages, 1)), priced)
        for (index, feed) in feeds.enumerated() {
            text += "    \(feed.exchange.rawValue): allocations per round (the first \(warmUpRounds) warm up) " + counted[index].map(String.init).joined(separator: " ") + "\n"
        }
        let verdict = Verdict(
            pass: allocations == 0 && priced == markets.assets.count,
            text: "depth message → engine allocations: \(allocations) in \(messages) messages (budget 0)"
                + (priced == markets.assets.count ? "" : "; only \(priced) of \(markets.assets.count) assets priced from the books"))
        return (text, [verdict])
    }

    /// An engine with one `basis: depth` rule over `exchanges` and USD/KRW from Dunamu, at `start`.
    private static func settledEngine(assets: [String], at start: Date) -> AlertEngine {
        var rule = PremiumRule(
            name: "depth", assets: assets, exchanges: exchanges, quotes: ["USDT", "KRW"], basis: .depth,
            levels: PremiumRule.defaultLevels, clearPct: 0.04, repeatInterval: .seconds(3600))
        rule.takerFeePct = Dictionary(uniqueKeysWithValues: exchanges.map { ($0, 0.1) })
        var premium = PremiumSettings()
        premium.rules = [rule]
        return IncrementalBenchmark.engine(premium: premium, exchanges: exchanges, at: start)
    }
}
