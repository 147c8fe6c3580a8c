import Foundation
import MarketAlertCore
@testable import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// A watched market the exchange does not list at start is left out of the stream's subscription (#26 item
/// 1); when the exchange's market list shows it later, the stream starts again with it. Real sockets (Bybit's
/// REST and WebSocket protocols on 127.0.0.1), virtual time.
@Suite struct StreamLaterListingTests {
    static let btc = MarketPair(base: "BTC", quote: "USDT")
    static let eth = MarketPair(base: "ETH", quote: "USDT")
    static let sol = MarketPair(base: "SOL", quote: "USDT")
    /// Under the stream's keepalive (a ping every 20 s, dead after 30 s of silence), which virtual time would outrun.
    static let check = Duration.seconds(10)
    static let listLabel = ClockLabel.poll("bybit market list")

    @Test func aMarketListedLaterJoinsTheStream() async throws {
        // BTC/KRW too: Bybit has no KRW market, so it is given up at the first read, for good.
        try await withListingScenario(listed: [Self.btc, Self.eth], watching: [MarketPair(base: "BTC", quote: "KRW")]) { s in
            #expect(s.topics(0) == ["orderbook.1.BTCUSDT", "tickers.BTCUSDT", "orderbook.1.ETHUSDT", "tickers.ETHUSDT"])
            // A check that finds SOL still unlisted leaves the connection alone.
            try await s.clock.waitForSleeper(Self.listLabel)
            await s.clock.advance(by: Self.check)
            try await s.clock.waitForSleeper(Self.listLabel, at: s.clock.now().addingTimeInterval(Self.check.seconds))
            #expect(s.listReads == 1)
            #expect(s.stream.connections.count == 1)

            // Bybit lists SOLUSDT: the next check restarts the stream with it.
            s.serve(listed: [Self.btc, Self.eth, Self.sol])
            await s.clock.advance(by: Self.check)
            try await s.stream.waitUntil("a second connection subscribing SOLUSDT") { server in
                server.connections.count == 2 && s.topics(1).contains("tickers.SOLUSDT")
            }
            #expect(s.topics(1) == [
                "orderbook.1.BTCUSDT", "tickers.BTCUSDT", "orderbook.1.ETHUSDT", "tickers.ETHUSDT", "orderbook.1.SOLUSDT", "tickers.SOLUSDT",
            ])
            try await s.stream.waitUntil("the first connection closed") { !$0.connections[0].isOpen }
            #expect(s.listReads == 2)
            // Its quotes reach the engine's inbox from the new connection.
            try await s.stream.waitUntil("the subscription acked") { _ in s.live >= 2 }
            s.stream.push(#"{"topic":"tickers.SOLUSDT","ts":1672304486868,"type":"snapshot","cs":1,"data":{"symbol":"SOLUSDT","lastPrice":"150.25"}}"#)
            try await pollUntil("SOLUSDT's quote in the mailbox") { s.taken.contains { $0.market == "SOLUSDT" } }
            #expect(s.taken.last { $0.market == "SOLUSDT" }?.last?.exact == Decimal(string: "150.25"))
            // Nothing is left to await (BTC/KRW was given up before the restart): the list is not read again.
            try await s.clock.waitUntil("the watch gone") { sleeping in !sleeping.contains { $0.label == Self.listLabel } }
            #expect(s.listReads == 2)
            #expect(s.log.all.filter { $0.message.contains("not watched for a listing") }.map { $0.metadata["markets"] } == ["BTC/KRW"])
        }
    }

    @Test func everyMarketListedAtStartNeverReadsTheList() async throws {
        try await withListingScenario(listed: [Self.btc, Self.eth, Self.sol]) { s in
            #expect(s.topics(0).contains("tickers.SOLUSDT"))
            try await s.clock.waitUntil("the poller asleep") { sleeping in sleeping.contains { $0.label == .poll("bybit") } }
            #expect(!s.clock.sleeping.contains { $0.label == Self.listLabel })
            await s.clock.advance(by: .seconds(600))
            #expect(s.listReads == 0)
        }
    }

    /// A KRW market on an exchange with no KRW market at all is not awaited: one read of the list, then none.
    @Test func aQuoteCurrencyTheExchangeDoesNotTradeIsNotWatched() async throws {
        let krw = MarketPair(base: "BTC", quote: "KRW")
        try await withListingScenario(listed: [Self.btc, Self.eth, Self.sol], watching: [krw]) { s in
            try await s.clock.waitForSleeper(Self.listLabel)
            await s.clock.advance(by: Self.check)
            try await pollUntil("the watch ended") { s.log.all.contains { $0.message.contains("not watched for a listing") } }
            #expect(s.log.all.first { $0.message.contains("not watched") }?.metadata["markets"] == "BTC/KRW")
            #expect(!s.clock.sleeping.contains { $0.label == Self.listLabel })
            #expect(s.listReads == 1)
            await s.clock.advance(by: Self.check)
            #expect(s.listReads == 1)
            #expect(s.stream.connections.count == 1)
        }
    }

    /// Bybit's REST (tickers and instruments) and stream on 127.0.0.1, and a producer for BTC, ETH and SOL
    /// against USDT (and `extra`) whose stream is live with what `listed` says when `body` runs.
    private func withListingScenario(listed: [MarketPair], watching extra: Set<MarketPair> = [], _ body: (Scenario) async throws -> Void) async throws {
        let clock = ManualClock(now: StreamTestHarness.start)
        try await withExchangeServer(clock: clock) { rest, fetcher in
            let stream = try await WebSocketTestServer(persona: StreamCase.bybit.persona(StreamPersonaKnobs()))
            let settings = ExchangeSettings(id: .bybit, baseURL: rest.baseURL)
            let log = LogRecorder()
            let source = try #require(ExchangeRegistry.standard.makeQuoteSource(settings, fetcher: fetcher))
            let pairs = Set([Self.btc, Self.eth, Self.sol]).union(extra)
            let producer = ExchangeProducer(
                poller: ExchangePoller(settings: settings, source: source, pairs: pairs, clock: clock),
                stream: StreamCase.bybit.makeSource(stream.url(StreamCase.bybit.path), clock, StreamCounters(), .seconds(30)),
                pairs: pairs, logger: log.logger(label: "listing-test"), marketList: MarketListSources.make(settings, fetcher: fetcher),
                listingCheck: Self.check)
            let scenario = Scenario(clock: clock, rest: rest, stream: stream, log: log)
            scenario.serve(listed: listed)
            let task = Task { await producer.run(into: scenario.inbox) }
            let reader = Task { await scenario.read() }
            defer { reader.cancel() }
            do {
                try await stream.waitUntil("the first subscription") { _ in !scenario.topics(0).isEmpty }
                try await pollUntil("the stream live") { scenario.live >= 1 }
                try await body(scenario)
            } catch {
                task.cancel()
                await stream.shutdown()
                throw error
            }
            task.cancel()
            await task.value
            await stream.shutdown()
        }
    }

    private final class Scenario: Sendable {
        let clock: ManualClock
        let rest: MockHTTPServer
        let stream: WebSocketTestServer
        let inbox = EngineInbox()
        let log: LogRecorder
        private let seen = Mutex<(live: Int, quotes: [Quote])>((0, []))

        init(clock: ManualClock, rest: MockHTTPServer, stream: WebSocketTestServer, log: LogRecorder) {
            self.log = log
            self.clock = clock
            self.rest = rest
            self.stream = stream
        }

        /// Serves `listed` as Bybit's tickers and instruments (`Trading`).
        func serve(listed: [MarketPair]) {
            let tickers = listed.map { #"{"symbol":"\#($0.base)USDT","bid1Price":"10","ask1Price":"10.1","lastPrice":"10.05","volume24h":"1"}"# }
            rest.route("/v5/market/tickers", response: .json(
                #"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[\#(tickers.joined(separator: ","))]},"retExtInfo":{},"time":1672712468011}"#))
            let rows = listed.map { #"{"symbol":"\#($0.base)USDT","baseCoin":"\#($0.base)","quoteCoin":"USDT","innovation":"0","status":"Trading"}"# }
            rest.route("/v5/market/instruments-info", response: .json(
                #"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[\#(rows.joined(separator: ","))]},"retExtInfo":{},"time":1672712468011}"#))
        }

        var listReads: Int { rest.requests.filter { $0.path == "/v5/market/instruments-info" }.count }

        /// The topics connection `index` subscribed to, in order.
        func topics(_ index: Int) -> [String] {
            let connections = stream.connections
            guard index < connections.count else { return [] }
            return connections[index].texts.flatMap { (StreamPersonas.object($0)?["args"] as? [String]) ?? [] }
        }

        /// How often the stream went live so far.
        var live: Int { seen.withLock { $0.live } }
        /// Every stream quote the engine's inbox received so far.
        var taken: [Quote] { seen.withLock { $0.quotes } }

        /// Reads the inbox as the engine loop would, until it is finished.
        func read() async {
            for await input in inbox.stream {
                switch input {
                case .event(.stream(_, live: true, _)): seen.withLock { $0.live += 1 }
                case .mailbox(let exchange):
                    let quotes = inbox.mailbox.take(exchange)
                    seen.withLock { $0.quotes += quotes }
                default: break
                }
            }
        }
    }
}
