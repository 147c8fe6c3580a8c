import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Recorded Bitfinex v2 `ticker` frames (cryptofeed, 2021-04-17): the greeting, the `subscribed` answers
    /// that number the channels, data frames (with the sequence number cryptofeed's `conf` asked for) and
    /// heartbeats; a test pair and unwatched markets among them. `IOT` is IOTA, `MNA` MANA, `UST` Tether.
    static let bitfinex = StreamCase(
        name: "bitfinex", exchange: .bitfinex, path: "/ws/2",
        pairs: [MarketPair(base: "BFT", quote: "USD"), MarketPair(base: "IOTA", quote: "ETH"), MarketPair(base: "MANA", quote: "BTC"),
                MarketPair(base: "BTC", quote: "USDT")],
        makeSource: source(BitfinexStream()),
        persona: StreamPersonas.of(.bitfinex),
        expectedTopics: ["tBFTUSD", "tIOTETH", "tMNABTC", "tBTCUST"],
        topics: { texts in
            Set(texts.compactMap { text in
                guard let object = StreamPersonas.object(text), object["event"] as? String == "subscribe" else { return nil }
                return object["symbol"] as? String
            })
        },
        recorded: lines("streams/bitfinex/ticker-20210417-cryptofeed.jsonl"),
        expected: [
            "tBFTUSD": Expected(bid: "0.068965", ask: "0.0774", last: "0.076989"),
            "tIOTETH": Expected(bid: "0.0010261", ask: "0.0010271", last: "0.0010245"),
            "tMNABTC": Expected(bid: "0.00002507", ask: "0.0000253", last: "0.00002516"),
        ],
        fresh: .text("[\(bitfinexUST),[67990,1.5,68000,2.25,5,0.0001,67995,10,68100,67900]]"),
        freshMarket: "tBTCUST", freshExpected: Expected(bid: "67990", ask: "68000", last: "67995"),
        bad: [
            (.text("[\(bitfinexUST),[0,1.5,68000,2.25,5,0.0001,67995,10,68100,67900]]"), .invalidPrice),
            (.text("[\(bitfinexUST),[67990,1.5,-68000,2.25,5,0.0001,67995,10,68100,67900]]"), .invalidPrice),
            (.text("[\(bitfinexUST),[67990,1.5,68000,2.25,5,0.0001,null,10,68100,67900]]"), .invalidPrice),
            (.text("[\(bitfinexUST),[68001,1.5,68000,2.25,5,0.0001,67995,10,68100,67900]]"), .crossedBook),
            (.text("[\(bitfinexUST),[67990,1.5,68000]]"), .malformed),
            (.text("[\(bitfinexUST),{\"bid\":67990}]"), .malformed),
            (.text(#"["chan",[67990,1.5,68000,2.25,5,0.0001,67995,10,68100,67900]]"#), .malformed),
            (.text("[\(bitfinexUST),[67990,1.5,68000,2.25,5,0.0001,67995,10,68100,67900]"), .malformed),
            (.text(#"{"event":"subscribed","channel":"ticker","symbol":"tBTCUST"}"#), .malformed),
            (.text(#"{"hello":"world"}"#), .unknownMessage),
        ],
        keepalive: .serverHeartbeats(.text("[\(bitfinexUST),\"hb\"]"), window: .seconds(30)),
        refusable: "tMNABTC")

    /// The channel number the test server's persona gives `tBTCUST`.
    static let bitfinexUST = BitfinexWire.channel("tBTCUST")
}
