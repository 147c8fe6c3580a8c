import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// v3 `GET /api/v1/book`, `marketalertd_book_levels`, `marketalertd_executable_pct` and `executable` on the
/// status of a `basis: depth` rule: a runtime in virtual time whose engine receives stream quotes carrying
/// order books (as the stream intake posts them), read through real requests to 127.0.0.1.
@Suite(.serialized) struct APIBookTests {
    let start = Date(timeIntervalSince1970: 1_763_800_000)

    struct World {
        let harness: RuntimeHarness
        let api: APITestServer

        init(start: Date) async throws {
            let clock = ManualClock(now: start)
            let binance = ScriptedQuoteSource(.binance, clock: clock)
            let bybit = ScriptedQuoteSource(.bybit, clock: clock)
            binance.set("BTC", "100000")
            bybit.set("BTC", "100000")
            let liveness = EngineLiveness(stuckAfter: .seconds(30))
            let metrics = DaemonMetrics(webhookQueue: nil)
            harness = try await RuntimeHarness.start(
                settings: try APIBookTests.settings(), store: nil, factory: scriptedFactory([binance, bybit]), clock: clock,
                prepare: { await APITestServer.prepare($0, liveness: liveness, metrics: metrics, silences: nil) })
            api = try await APITestServer(runtime: harness.runtime, clock: clock, liveness: liveness, metrics: metrics)
        }

        /// Posts one stream quote of `exchange`'s BTCUSDT with a synced book of `levels` levels read, holding
        /// five a side 10 USDT apart from `bid` and `ask`, 0.05 BTC each.
        @discardableResult
        func postBook(_ exchange: ExchangeID, bid: Double, ask: Double, levels: Int = 3) async throws -> OrderBook {
            let now = harness.clock.now()
            var book = OrderBook(levels: levels)
            book.beginSnapshot()
            for step in 0..<5 {
                book.set(bid: true, price: bid - 10 * Double(step), size: 0.05)
                book.set(bid: false, price: ask + 10 * Double(step), size: 0.05)
            }
            #expect(book.commit(at: now, snapshot: true) == nil)
            var quote = Quote(
                exchange: exchange, market: "BTCUSDT", base: "BTC", quote: "USDT", last: nil, bid: Price(bid), ask: Price(ask),
                exchangeTime: now, receivedAt: now, transport: .stream)
            quote.depth = book
            try await post(quote)
            return book
        }

        func post(_ quote: Quote) async throws {
            harness.runtime.inbox.post([quote], from: quote.exchange)
            try await harness.settle()
        }

        func stop() async {
            await api.stop()
            await harness.stop()
        }
    }

    static func settings() throws -> Settings {
        try ConfigLoader.parse(yaml: """
            exchanges:
              binance: { poll_interval: 5s }
              bybit: { poll_interval: 5s }
            premium:
              max_quote_age: 30s
              rules:
                - name: executable
                  assets: [BTC]
                  exchanges: [binance, bybit]
                  quotes: [USDT]
                  basis: depth
                  notional: 1000
                  levels:
                    - { pct: 0.1, severity: warning }
                  clear_pct: 0.05
            """).settings
    }

    @Test func aHeldBookIsReadWithTheLevelsARuleReadsAndOthersAnswer404Or400() async throws {
        let world = try await World(start: start)
        let held = try await world.postBook(.binance, bid: 99_990, ask: 100_000)
        let answer = try await world.api.get("/api/v1/book?exchange=binance&market=BTCUSDT")
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.header("content-type")?.hasPrefix("application/json") == true)
        let json = answer.json
        #expect(json["exchange"] as? String == "binance")
        #expect(json["market"] as? String == "BTCUSDT")
        #expect(json["synced"] as? Bool == true)
        #expect(json["at"] as? String == held.at.map(Timestamp.rfc3339))
        // Five held a side, three read (the book's levels), best first.
        #expect(json["bids"] as? [[Double]] == (0..<3).map { [99_990 - 10 * Double($0), 0.05] })
        #expect(json["asks"] as? [[Double]] == (0..<3).map { [100_000 + 10 * Double($0), 0.05] })
        // The market id in another case finds the same book; its own spelling is answered.
        #expect(try await world.api.get("/api/v1/book?exchange=BINANCE&market=btcusdt").json["market"] as? String == "BTCUSDT")

        // Bybit has only REST quotes (no book); an unknown market and exchange hold none either.
        for path in ["exchange=bybit&market=BTCUSDT", "exchange=binance&market=ETHUSDT", "exchange=nowhere&market=BTCUSDT"] {
            let missing = try await world.api.get("/api/v1/book?" + path)
            #expect(missing.status == 404, "\(path)")
            #expect((missing.json["error"] as? String)?.contains("no order book") == true)
        }
        for (path, field) in [("market=BTCUSDT", "exchange"), ("exchange=binance", "market"), ("exchange=binance&market=", "market"),
                              ("exchange=bin%20ance&market=BTCUSDT", "exchange"), ("exchange=binance&market=" + String(repeating: "X", count: 65), "market")] {
            let bad = try await world.api.get("/api/v1/book?" + path)
            #expect(bad.status == 400, "\(path)")
            #expect(bad.json["field"] as? String == field, "\(path)")
        }
        #expect(try await world.api.request(.POST, "/api/v1/book?exchange=binance&market=BTCUSDT", body: "{}").status == 405)
        await world.stop()
    }

    @Test func aBookThrownAwayIsShownOutOfSync() async throws {
        let world = try await World(start: start)
        var book = try await world.postBook(.binance, bid: 99_990, ask: 100_000)
        #expect(try await world.api.get("/api/v1/book?exchange=binance&market=BTCUSDT").json["synced"] as? Bool == true)
        // A crossed change: the book refuses it and is out of sync until a snapshot (the engine stops using it).
        let now = world.harness.clock.now()
        book.set(bid: true, price: 100_005, size: 1)
        #expect(book.commit(at: now, snapshot: false) == .crossed)
        var quote = Quote(exchange: .binance, market: "BTCUSDT", base: "BTC", quote: "USDT", last: nil, receivedAt: now, transport: .stream)
        quote.depth = book
        try await world.post(quote)
        let json = try await world.api.get("/api/v1/book?exchange=binance&market=BTCUSDT").json
        #expect(json["synced"] as? Bool == false)
        #expect((json["bids"] as? [[Double]])?.first == [100_005, 1])
        await world.stop()
    }

    @Test func theExecutablePremiumIsOnStatusMetricsAndThePage() async throws {
        let world = try await World(start: start)
        // Buy 1,000 USD on Binance's asks (0.01 BTC at 100,000: one level), sell on Bybit's bids at 100,500.
        try await world.postBook(.binance, bid: 99_990, ask: 100_000)
        try await world.postBook(.bybit, bid: 100_500, ask: 100_510)
        let status = try await world.api.get("/api/v1/status")
        let premium = try #require((status.json["premium"] as? [[String: Any]])?.first)
        let trade = try #require(premium["executable"] as? [String: Any], "\(status.text)")
        let buy = try #require(trade["buy"] as? [String: Any])
        let sell = try #require(trade["sell"] as? [String: Any])
        #expect(trade["notional"] as? Double == 1000)
        #expect(buy["exchange"] as? String == "binance" && buy["levels"] as? Int == 1 && buy["vwap"] as? Double == 100_000)
        #expect(sell["exchange"] as? String == "bybit" && sell["levels"] as? Int == 1 && sell["vwap"] as? Double == 100_500)
        let gross = (100_500.0 / 100_000 - 1) * 100
        let buyFee = try #require(buy["fee_pct"] as? Double)
        let sellFee = try #require(sell["fee_pct"] as? Double)
        let net = (100_500.0 * (1 - sellFee / 100) / (100_000 * (1 + buyFee / 100)) - 1) * 100
        #expect(abs((trade["gross_pct"] as? Double ?? 0) - gross) < 1e-6)
        #expect(abs((trade["net_pct"] as? Double ?? 0) - net) < 1e-6)
        #expect(abs((premium["pct"] as? Double ?? 0) - net) < 1e-6)
        #expect(trade["max_notional"] as? Double ?? 0 > 1000, "the pct meets 0.1% beyond 1,000 USD")
        let document = String(decoding: try JSONSerialization.data(withJSONObject: trade, options: [.sortedKeys]), as: UTF8.self)
        #expect(try await SchemaValidator.validate([document], definition: "/$defs/premium/properties/executable") == [])

        let lines = try await world.api.get("/metrics").text.split(separator: "\n").map(String.init)
        let executable = try #require(lines.first { $0.hasPrefix(#"marketalertd_executable_pct{rule="executable",asset="BTC"} "#) }, "\(lines)")
        #expect(abs((Double(executable.split(separator: " ").last ?? "") ?? 0) - net) < 1e-6)
        for exchange in ["binance", "bybit"] {
            for side in ["bid", "ask"] {
                #expect(lines.contains(#"marketalertd_book_levels{exchange="\#(exchange)",market="BTCUSDT",side="\#(side)"} 3.0"#), "\(exchange) \(side)")
            }
        }
        #expect(lines.contains { $0.hasPrefix("# HELP marketalertd_book_levels ") })

        let page = try await world.api.get("/").text
        #expect(page.contains(#"data-executable="premium/executable/BTC""#))
        #expect(page.contains("buy binance BTCUSDT (1 level, VWAP 100,000"))
        #expect(page.contains("sell bybit BTCUSDT (1 level, VWAP 100,500"))
        #expect(page.contains("up to"))
        await world.stop()
    }

    @Test func withoutBooksThereIsNoExecutableAndNoBookGauge() async throws {
        let world = try await World(start: start)
        let status = try await world.api.get("/api/v1/status")
        let premium = try #require((status.json["premium"] as? [[String: Any]])?.first)
        #expect(premium["executable"] == nil, "no books yet: no trade")
        let lines = try await world.api.get("/metrics").text.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("marketalertd_book_levels{") || $0.hasPrefix("marketalertd_executable_pct{") })
        await world.stop()
    }
}
