import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Kraken v2 ticker frames in the documented schema (see PROVENANCE.md: constructed).
    static let kraken = StreamCase(
        name: "kraken", exchange: .kraken, path: "/v2",
        pairs: [MarketPair(base: "BTC", quote: "USD"), MarketPair(base: "ETH", quote: "USD"), MarketPair(base: "SOL", quote: "USD")],
        makeSource: source(KrakenStream()),
        persona: StreamPersonas.of(.kraken),
        expectedTopics: ["BTC/USD", "ETH/USD", "SOL/USD"],
        topics: { texts in
            Set(texts.flatMap { text -> [String] in
                ((StreamPersonas.object(text)?["params"] as? [String: Any])?["symbol"] as? [String]) ?? []
            })
        },
        recorded: lines("streams/kraken/ticker-v2-constructed.jsonl"),
        expected: [
            "BTC/USD": Expected(bid: "67080.1", ask: "67080.2", last: "67079.6"),
            "ETH/USD": Expected(bid: "3500.25", ask: "3500.26", last: "3500.25"),
        ],
        fresh: .text(#"{"channel":"ticker","type":"update","data":[{"symbol":"SOL/USD","bid":150.12,"bid_qty":3.0,"ask":150.13,"ask_qty":4.0,"last":150.12,"volume":1.0,"vwap":150.0,"low":149.0,"high":151.0,"change":1.0,"change_pct":0.67}]}"#),
        freshMarket: "SOL/USD", freshExpected: Expected(bid: "150.12", ask: "150.13", last: "150.12"),
        bad: [
            (.text(#"{"channel":"ticker","type":"update","data":[{"symbol":"SOL/USD","bid":0.0,"ask":150.13,"last":150.12}]}"#), .invalidPrice),
            (.text(#"{"channel":"ticker","type":"update","data":[{"symbol":"SOL/USD","bid":150.12,"ask":-1,"last":150.12}]}"#), .invalidPrice),
            (.text(#"{"channel":"ticker","type":"update","data":[{"symbol":"SOL/USD","bid":150.12,"ask":150.13,"last":"inf"}]}"#), .invalidPrice),
            (.text(#"{"channel":"ticker","type":"update","data":[{"symbol":"SOL/USD","bid":151.0,"ask":150.13,"last":150.12}]}"#), .crossedBook),
            (.text(#"{"channel":"ticker","type":"update","data":{"symbol":"SOL/USD"}}"#), .malformed),
            (.text(#"{"channel":"ticker","type":"update","data":[{"bid":150.12}]}"#), .malformed),
            (.text(#"{"data":[]}"#), .unknownMessage),
        ],
        keepalive: .serverHeartbeats(.text(#"{"channel":"heartbeat"}"#), window: .seconds(10)),
        partialAck: true, refusable: "SOL/USD")

    /// Recorded Coinbase `ticker` messages (cryptofeed, 2021-04-17).
    static let coinbase = StreamCase(
        name: "coinbase", exchange: .coinbase, path: "/",
        pairs: [MarketPair(base: "SKL", quote: "USD"), MarketPair(base: "DASH", quote: "BTC"), MarketPair(base: "BTC", quote: "USD")],
        makeSource: source(CoinbaseStream()),
        persona: StreamPersonas.of(.coinbase),
        expectedTopics: ["BTC-USD", "DASH-BTC", "SKL-USD"],
        topics: { texts in Set(texts.flatMap { (StreamPersonas.object($0)?["product_ids"] as? [String]) ?? [] }) },
        recorded: lines("streams/coinbase/ticker-SKL-USD-DASH-BTC-20210417-cryptofeed.jsonl"),
        expected: [
            "SKL-USD": Expected(bid: "0.7909", ask: "0.7913", last: "0.7913"),
            "DASH-BTC": Expected(bid: "0.00619646", ask: "0.00620564", last: "0.00620564"),
        ],
        fresh: .text(#"{"type":"ticker","sequence":1,"product_id":"BTC-USD","price":"61000.01","open_24h":"60000","volume_24h":"1","low_24h":"59000","high_24h":"62000","volume_30d":"10","best_bid":"61000.00","best_ask":"61000.02","side":"buy","time":"2021-04-17T16:43:30.244075Z","trade_id":1,"last_size":"0.01"}"#),
        freshMarket: "BTC-USD", freshExpected: Expected(bid: "61000.00", ask: "61000.02", last: "61000.01"),
        bad: [
            (.text(#"{"type":"ticker","product_id":"BTC-USD","price":"0","best_bid":"61000.00","best_ask":"61000.02"}"#), .invalidPrice),
            (.text(#"{"type":"ticker","product_id":"BTC-USD","price":"61000.01","best_bid":"-61000.00","best_ask":"61000.02"}"#), .invalidPrice),
            (.text(#"{"type":"ticker","product_id":"BTC-USD","price":"61000.01","best_bid":"61000.00","best_ask":"NaN"}"#), .invalidPrice),
            (.text(#"{"type":"ticker","product_id":"BTC-USD","price":"61000.01","best_bid":"61000.05","best_ask":"61000.02"}"#), .crossedBook),
            (.text(#"{"type":"ticker","price":"61000.01"}"#), .malformed),
            (.text(#"{"type":"subscriptions","channels":{}}"#), .malformed),
            (.text(#"{"sequence":5}"#), .unknownMessage),
        ],
        keepalive: .serverHeartbeats(.text(#"{"type":"heartbeat","last_trade_id":20,"product_id":"BTC-USD","sequence":90,"time":"2021-04-17T16:43:30.244075Z"}"#), window: .seconds(10)),
        partialAck: true, refusable: "BTC-USD")
}
