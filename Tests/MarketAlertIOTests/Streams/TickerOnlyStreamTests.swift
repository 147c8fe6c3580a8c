import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The streams whose best bid/ask has a channel of its own leave it out where no rule reads it
/// (`withoutBestBidAsk`; #26 item 15): Binance `@bookTicker`, Bybit `orderbook.1`, HTX `bbo`, Gate
/// `spot.book_ticker`, Upbit's and Bithumb's `orderbook`. Books, where a
/// depth rule keeps them, are subscribed as before; the other exchanges have no such channel.
@Suite struct TickerOnlyStreamTests {
    private static func decode<P: ExchangeStreamProtocol>(_ stream: P, _ frames: [String], pair: MarketPair) -> Quote {
        var table = StreamMarketTable(pairs: [pair], marketID: stream.marketID)
        for text in frames {
            table.beginFrame()
            _ = Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date()) }
        }
        return table.quote(0, exchange: stream.exchange, receivedAt: Date(timeIntervalSince1970: 5))
    }

    @Test func binanceSubscribesTheTickerAloneAndTakesItsBidAndAsk() throws {
        let stream = try #require(BinanceStream().withoutBestBidAsk())
        let plan = stream.subscription(for: ["BNBUSDT", "ETHUSDT"])
        let params = try #require(StreamPersonas.object(plan.messages[0])?["params"] as? [String])
        #expect(params == ["bnbusdt@ticker", "ethusdt@ticker"])
        let quote = Self.decode(stream, [#"{"e":"24hrTicker","E":1672515782136,"s":"BNBUSDT","c":"25.15","b":"25.10","a":"25.20"}"#], pair: MarketPair(base: "BNB", quote: "USDT"))
        #expect(quote.last?.exact == Decimal(string: "25.15"))
        #expect(quote.bid?.exact == Decimal(string: "25.1"))
        #expect(quote.ask?.exact == Decimal(string: "25.2"))
        // A crossed or unusable bid/ask in the ticker leaves them out; the last price still counts.
        let crossed = Self.decode(stream, [#"{"e":"24hrTicker","E":1672515782136,"s":"BNBUSDT","c":"25.15","b":"26","a":"25"}"#], pair: MarketPair(base: "BNB", quote: "USDT"))
        #expect(crossed.last?.exact == Decimal(string: "25.15"))
        #expect(crossed.bid == nil && crossed.ask == nil)
    }

    @Test func binanceWithBooksStillSubscribesItsDepth() throws {
        let stream = try #require(BinanceStream().withoutBestBidAsk()?.keepingBooks(levels: 20))
        let params = try #require(StreamPersonas.object(stream.subscription(for: ["BNBUSDT"]).messages[0])?["params"] as? [String])
        #expect(params == ["bnbusdt@depth@100ms", "bnbusdt@ticker"])
    }

    @Test func bybitSubscribesTickersAloneTenToARequest() throws {
        let stream = try #require(BybitStream().withoutBestBidAsk())
        let markets = (0..<12).map { "C\($0)USDT" }
        let plan = stream.subscription(for: markets)
        #expect(plan.messages.count == 2)
        #expect(plan.parts == [Array(markets[0..<10]), Array(markets[10...])])
        #expect(plan.messages[0].hasPrefix(#"{"req_id":"sub-C0USDT","op":"subscribe","args":["tickers.C0USDT","tickers.C1USDT","#))
        #expect(!plan.messages.joined().contains("orderbook"))
        let books = try #require(BybitStream().withoutBestBidAsk()?.keepingBooks(levels: 20))
        #expect(books.subscription(for: ["BTCUSDT"]).messages[0].contains(#""orderbook.50.BTCUSDT","tickers.BTCUSDT""#))
    }

    @Test func htxSubscribesTheTickerAlone() throws {
        let stream = try #require(HTXStream().withoutBestBidAsk())
        #expect(stream.subscription(for: ["btcusdt"]).acks == ["market.btcusdt.ticker"])
        let books = try #require(HTXStream().withoutBestBidAsk()?.keepingBooks(levels: 20))
        #expect(books.subscription(for: ["btcusdt"]).acks == ["market.btcusdt.bbo", "market.btcusdt.ticker", "market.btcusdt.depth.step0"])
    }

    @Test func gateSubscribesTickersAlone() throws {
        let stream = try #require(GateStream().withoutBestBidAsk())
        let plan = stream.subscription(for: ["BTC_USDT", "ETH_USDT"])
        #expect(plan.messages.count == 1)
        #expect(plan.messages[0].contains(#""channel":"spot.tickers","event":"subscribe","payload":["BTC_USDT","ETH_USDT"]"#))
        #expect(GateStream().subscription(for: ["BTC_USDT"]).messages.contains { $0.contains("spot.book_ticker") })
    }

    @Test func upbitAndBithumbAskForTheTickerAlone() throws {
        let upbit = try #require(UpbitStream(ticket: "t").withoutBestBidAsk())
        #expect(upbit.subscription(for: ["KRW-BTC", "KRW-ETH"]).messages
            == [#"[{"ticket":"t"},{"type":"ticker","codes":["KRW-BTC","KRW-ETH"]},{"format":"SIMPLE"}]"#])
        #expect(UpbitStream(ticket: "t").subscription(for: ["KRW-BTC"]).messages
            == [#"[{"ticket":"t"},{"type":"ticker","codes":["KRW-BTC"]},{"type":"orderbook","codes":["KRW-BTC.1"]},{"format":"SIMPLE"}]"#])
        let books = try #require(UpbitStream(ticket: "t").withoutBestBidAsk()?.keepingBooks(levels: 20))
        #expect(books.subscription(for: ["KRW-BTC"]).messages[0].contains(#"{"type":"orderbook","codes":["KRW-BTC.30"]}"#))
        let bithumb = try #require(BithumbStream(ticket: "t").withoutBestBidAsk())
        #expect(bithumb.subscription(for: ["KRW-BTC"]).messages == [#"[{"ticket":"t"},{"type":"ticker","codes":["KRW-BTC"]},{"format":"DEFAULT"}]"#])
        #expect(bithumb.subscription(for: ["KRW-BTC"]).liveOnFirstData)
    }

    /// Every other kit's ticker carries the best bid/ask already: nothing to leave out.
    @Test func theOtherKitsHaveNoSuchChannel() {
        #expect(OKXStream().withoutBestBidAsk() == nil)
        #expect(KrakenStream().withoutBestBidAsk() == nil)
        #expect(BitgetStream().withoutBestBidAsk() == nil)
        #expect(CoinbaseStream().withoutBestBidAsk() == nil)
    }
}
