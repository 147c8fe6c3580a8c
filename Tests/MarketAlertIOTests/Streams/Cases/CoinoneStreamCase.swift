import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Coinone `TICKER` pushes: ccxt's sample for KRW-BTC (ccxt `pro/coinone.py`) and Coinone's docs example
    /// for KRW-XRP.
    static let coinone = StreamCase(
        name: "coinone", exchange: .coinone, path: "/",
        pairs: [MarketPair(base: "BTC", quote: "KRW"), MarketPair(base: "ETH", quote: "KRW"), MarketPair(base: "XRP", quote: "KRW")],
        makeSource: source(CoinoneStream()),
        persona: StreamPersonas.of(.coinone),
        expectedTopics: ["TICKER:KRW-BTC", "TICKER:KRW-ETH", "TICKER:KRW-XRP"],
        topics: { texts in
            Set(texts.compactMap { text -> String? in
                guard let object = StreamPersonas.object(text), object["request_type"] as? String == "SUBSCRIBE",
                      let topic = object["topic"] as? [String: Any] else { return nil }
                return "\(object["channel"] ?? ""):\(topic["quote_currency"] ?? "")-\(topic["target_currency"] ?? "")"
            })
        },
        recorded: lines("streams/coinone/ticker-KRW-BTC-ccxtsrc.jsonl") + lines("streams/coinone/ticker-KRW-XRP-docs.jsonl"),
        expected: [
            "BTC": Expected(bid: "58532000", ask: "58537000", last: "58532000"),
            "XRP": Expected(bid: "687.8", ask: "687.9", last: "687.9"),
        ],
        fresh: .text(#"{"response_type":"DATA","channel":"TICKER","data":{"quote_currency":"KRW","target_currency":"ETH","timestamp":1705301117300,"last":"3300000","ask_best_price":"3300500","bid_best_price":"3299500"}}"#),
        freshMarket: "ETH", freshExpected: Expected(bid: "3299500", ask: "3300500", last: "3300000"),
        bad: [
            (.text(#"{"response_type":"DATA","channel":"TICKER","data":{"quote_currency":"KRW","target_currency":"ETH","last":"0","ask_best_price":"3300500","bid_best_price":"3299500"}}"#), .invalidPrice),
            (.text(#"{"response_type":"DATA","channel":"TICKER","data":{"quote_currency":"KRW","target_currency":"ETH","last":"3300000","ask_best_price":"-1","bid_best_price":"3299500"}}"#), .invalidPrice),
            (.text(#"{"response_type":"DATA","channel":"TICKER","data":{"quote_currency":"KRW","target_currency":"ETH","last":"NaN","ask_best_price":"3300500","bid_best_price":"3299500"}}"#), .invalidPrice),
            (.text(#"{"response_type":"DATA","channel":"TICKER","data":{"quote_currency":"KRW","target_currency":"ETH","last":"3300000","ask_best_price":"3299000","bid_best_price":"3299500"}}"#), .crossedBook),
            (.text(#"{"response_type":"DATA","channel":"TICKER","data":{"quote_currency":"KRW","target_currency":"ETH","last":"","ask_best_price":"","bid_best_price":""}}"#), .invalidPrice),
            (.text(#"{"response_type":"DATA","channel":"TICKER","data":{"quote_currency":"KRW","last":"3300000"}}"#), .malformed),
            (.text(#"{"response_type":"DATA","channel":"TICKER","data":["ETH"]}"#), .malformed),
            (.text(#"{"response_type":"DATA","channel":"TICKER","data":{"quote_currency":"KRW","target_currency":"ETH","last":"3300000","id":"x1"}}"#), .malformed),
            (.text(#"{"channel":"TICKER","data":{}}"#), .unknownMessage),
        ],
        keepalive: .clientPings(.text(#"{"request_type":"PING"}"#), interval: .seconds(20), window: .seconds(30)))
}
