import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Recorded Binance combined-stream bookTicker frames (cryptofeed, 2021-10-12) and the documentation's
    /// raw bookTicker and 24hrTicker examples.
    static let binance = StreamCase(
        name: "binance", exchange: .binance, path: "/ws",
        pairs: [MarketPair(base: "NKN", quote: "USDT"), MarketPair(base: "LRC", quote: "BTC"),
                MarketPair(base: "BNB", quote: "USDT"), MarketPair(base: "BNB", quote: "BTC")],
        makeSource: source(BinanceStream()),
        persona: StreamPersonas.of(.binance),
        expectedTopics: Set(["nknusdt", "lrcbtc", "bnbusdt", "bnbbtc"].flatMap { ["\($0)@bookTicker", "\($0)@ticker"] }),
        topics: { texts in Set(texts.flatMap { (StreamPersonas.object($0)?["params"] as? [String]) ?? [] }) },
        recorded: lines("streams/binance/bookTicker-combined-20211012-cryptofeed.jsonl") + lines("streams/binance/docs-examples.jsonl"),
        expected: [
            "NKNUSDT": Expected(bid: "0.35210000", ask: "0.35260000"),
            "LRCBTC": Expected(bid: "0.00000637", ask: "0.00000638"),
            "BNBUSDT": Expected(bid: "25.35190000", ask: "25.36520000"),
            "BNBBTC": Expected(last: "0.0025"),
        ],
        fresh: .text(#"{"u":400900300,"s":"BNBUSDT","b":"25.40000000","B":"1.0","a":"25.41000000","A":"2.0"}"#),
        freshMarket: "BNBUSDT", freshExpected: Expected(bid: "25.4", ask: "25.41"),
        bad: [
            (.text(#"{"u":1,"s":"BNBUSDT","b":"0.00000000","B":"1","a":"25.4","A":"1"}"#), .invalidPrice),
            (.text(#"{"u":1,"s":"BNBUSDT","b":"-25.4","B":"1","a":"25.4","A":"1"}"#), .invalidPrice),
            (.text(#"{"u":1,"s":"BNBUSDT","b":"NaN","B":"1","a":"25.4","A":"1"}"#), .invalidPrice),
            (.text(#"{"u":1,"s":"BNBUSDT","b":"Infinity","B":"1","a":"25.4","A":"1"}"#), .invalidPrice),
            (.text(#"{"u":1,"s":"BNBUSDT","b":1e999,"B":"1","a":"25.4","A":"1"}"#), .invalidPrice),
            (.text(#"{"u":1,"s":"BNBUSDT","b":"25.5","B":"1","a":"25.4","A":"1"}"#), .crossedBook),
            (.text(#"{"e":"24hrTicker","E":1672515782136,"s":"BNBBTC","c":"0.0000"}"#), .invalidPrice),
            (.text(#"{"u":1,"s":"BNBUSDT","b":"25.4","B":"1","a":"25.4""#), .malformed),
            (.text(#"{"u":1,"s":"BNBUSDT","b":"25.4"} trailing"#), .malformed),
            (.text(#"{"hello":"world"}"#), .unknownMessage),
        ],
        keepalive: .serverPings)
}
