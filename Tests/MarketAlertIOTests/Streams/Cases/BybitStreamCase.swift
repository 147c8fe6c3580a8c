import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Bybit v5 spot: the documentation's `tickers` (spot) and order book examples (the book example cut to depth 1).
    static let bybit = StreamCase(
        name: "bybit", exchange: .bybit, path: "/v5/public/spot",
        pairs: [MarketPair(base: "BTC", quote: "USDT"), MarketPair(base: "ETH", quote: "USDT")],
        makeSource: source(BybitStream()),
        persona: StreamPersonas.of(.bybit),
        expectedTopics: ["orderbook.1.BTCUSDT", "tickers.BTCUSDT", "orderbook.1.ETHUSDT", "tickers.ETHUSDT"],
        topics: { texts in Set(texts.flatMap { (StreamPersonas.object($0)?["args"] as? [String]) ?? [] }) },
        recorded: lines("streams/bybit/docs-examples.jsonl"),
        expected: ["BTCUSDT": Expected(bid: "16493.50", ask: "16611.00", last: "21109.77")],
        fresh: .text(#"{"topic":"orderbook.1.ETHUSDT","type":"snapshot","ts":1672304484978,"data":{"s":"ETHUSDT","b":[["1200.50","1.5"]],"a":[["1200.60","0.2"]],"u":1,"seq":2},"cts":1672304484976}"#),
        freshMarket: "ETHUSDT", freshExpected: Expected(bid: "1200.50", ask: "1200.60"),
        bad: [
            (.text(#"{"topic":"orderbook.1.ETHUSDT","type":"snapshot","ts":1,"data":{"s":"ETHUSDT","b":[["0","1.5"]],"a":[["1200.60","0.2"]],"u":1,"seq":2}}"#), .invalidPrice),
            (.text(#"{"topic":"orderbook.1.ETHUSDT","type":"snapshot","ts":1,"data":{"s":"ETHUSDT","b":[["1200.50","1.5"]],"a":[["-1","0.2"]],"u":1,"seq":2}}"#), .invalidPrice),
            (.text(#"{"topic":"orderbook.1.ETHUSDT","type":"snapshot","ts":1,"data":{"s":"ETHUSDT","b":[["1300","1.5"]],"a":[["1200.60","0.2"]],"u":1,"seq":2}}"#), .crossedBook),
            (.text(#"{"topic":"orderbook.1.ETHUSDT","type":"delta","ts":1,"data":{"s":"ETHUSDT","b":[["1200.50"]],"a":[],"u":1,"seq":2}}"#), .malformed),
            (.text(#"{"topic":"tickers.ETHUSDT","ts":1,"type":"snapshot","data":{"symbol":"ETHUSDT","lastPrice":"Infinity"}}"#), .invalidPrice),
            (.text(#"{"topic":"tickers.ETHUSDT","ts":1,"type":"snapshot","data":[]}"#), .unknownMessage),
        ],
        keepalive: .clientPings(.text(#"{"op":"ping"}"#), interval: .seconds(20), window: .seconds(30)),
        refusable: "ETHUSDT")
}
