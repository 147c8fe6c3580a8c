import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Recorded Gate `spot.tickers` updates (cryptofeed, 2021-04-22) and ccxt's `spot.book_ticker` sample.
    static let gate = StreamCase(
        name: "gate", exchange: .gate, path: "/ws/v4/",
        pairs: [
            MarketPair(base: "OMG", quote: "USDT"), MarketPair(base: "DIS", quote: "USDT"), MarketPair(base: "BTC", quote: "USDT"),
            MarketPair(base: "ETH", quote: "USDT"),
        ],
        makeSource: source(GateStream()),
        persona: StreamPersonas.of(.gate),
        expectedTopics: Set(["BTC_USDT", "DIS_USDT", "ETH_USDT", "OMG_USDT"].flatMap { ["spot.tickers:\($0)", "spot.book_ticker:\($0)"] }),
        topics: { texts in
            Set(texts.flatMap { text -> [String] in
                guard let object = StreamPersonas.object(text), object["event"] as? String == "subscribe",
                      let channel = object["channel"] as? String else { return [] }
                return (object["payload"] as? [String] ?? []).map { "\(channel):\($0)" }
            })
        },
        recorded: lines("streams/gate/tickers-OMG_USDT-DIS_USDT-20210422-cryptofeed.jsonl") + lines("streams/gate/book_ticker-BTC_USDT-ccxtsrc.jsonl"),
        expected: [
            "OMG_USDT": Expected(last: "7.915"),
            "DIS_USDT": Expected(last: "121.58"),
            "BTC_USDT": Expected(bid: "16716.8", ask: "16716.9"),
        ],
        fresh: .text(#"{"time":1671363004,"time_ms":1671363004235,"channel":"spot.tickers","event":"update","result":{"currency_pair":"ETH_USDT","last":"2000.5","lowest_ask":"2000.6","highest_bid":"2000.4","change_percentage":"1.2","base_volume":"10","quote_volume":"20005","high_24h":"2100","low_24h":"1900"}}"#),
        freshMarket: "ETH_USDT", freshExpected: Expected(last: "2000.5"),
        bad: [
            (.text(#"{"time":1671363004,"channel":"spot.tickers","event":"update","result":{"currency_pair":"ETH_USDT","last":"0"}}"#), .invalidPrice),
            (.text(#"{"time":1671363004,"channel":"spot.tickers","event":"update","result":{"currency_pair":"ETH_USDT","last":"-2000.5"}}"#), .invalidPrice),
            (.text(#"{"time":1671363004,"channel":"spot.book_ticker","event":"update","result":{"t":1671363004228,"u":9793320465,"s":"ETH_USDT","b":"NaN","B":"1","a":"2000.6","A":"1"}}"#), .invalidPrice),
            (.text(#"{"time":1671363004,"channel":"spot.book_ticker","event":"update","result":{"t":1671363004228,"u":9793320466,"s":"ETH_USDT","b":"2000.7","B":"1","a":"2000.6","A":"1"}}"#), .crossedBook),
            (.text(#"{"time":1671363004,"channel":"spot.book_ticker","event":"update","result":{"t":1671363004228,"u":"x","s":"ETH_USDT","b":"2000.4","B":"1","a":"2000.6","A":"1"}}"#), .malformed),
            (.text(#"{"time":1671363004,"channel":"spot.tickers","event":"update","result":{"last":"2000.5"}}"#), .malformed),
            (.text(#"{"time":1671363004,"channel":"spot.tickers","event":"update","result":[]}"#), .malformed),
            (.text(#"{"time":1671363004,"result":{"currency_pair":"ETH_USDT"}}"#), .unknownMessage),
        ],
        keepalive: .clientPings(.ping(Data()), interval: .seconds(15), window: .seconds(30)),
        refusable: "ETH_USDT")
}
