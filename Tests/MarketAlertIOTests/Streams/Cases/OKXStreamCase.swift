import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Recorded OKX v5 `tickers` pushes for BTC-USDT (cryptofeed, 2022-05-13).
    static let okx = StreamCase(
        name: "okx", exchange: .okx, path: "/ws/v5/public",
        pairs: [MarketPair(base: "BTC", quote: "USDT"), MarketPair(base: "ETH", quote: "USDT")],
        makeSource: source(OKXStream()),
        persona: StreamPersonas.of(.okx),
        expectedTopics: ["tickers:BTC-USDT", "tickers:ETH-USDT"],
        topics: { texts in
            Set(texts.flatMap { text -> [String] in
                let args = StreamPersonas.object(text)?["args"] as? [[String: Any]] ?? []
                return args.map { "\($0["channel"] ?? ""):\($0["instId"] ?? "")" }
            })
        },
        recorded: lines("streams/okx/tickers-BTC-USDT-20220513-cryptofeed.jsonl"),
        expected: ["BTC-USDT": Expected(bid: "30243.4", ask: "30243.5", last: "30247.4")],
        fresh: .text(#"{"arg":{"channel":"tickers","instId":"ETH-USDT"},"data":[{"instType":"SPOT","instId":"ETH-USDT","last":"2000.5","lastSz":"0.1","askPx":"2000.6","askSz":"1","bidPx":"2000.4","bidSz":"1","ts":"1652459229140"}]}"#),
        freshMarket: "ETH-USDT", freshExpected: Expected(bid: "2000.4", ask: "2000.6", last: "2000.5"),
        bad: [
            (.text(#"{"arg":{"channel":"tickers","instId":"ETH-USDT"},"data":[{"instId":"ETH-USDT","last":"0","askPx":"2000.6","bidPx":"2000.4"}]}"#), .invalidPrice),
            (.text(#"{"arg":{"channel":"tickers","instId":"ETH-USDT"},"data":[{"instId":"ETH-USDT","last":"2000.5","askPx":"-1","bidPx":"2000.4"}]}"#), .invalidPrice),
            (.text(#"{"arg":{"channel":"tickers","instId":"ETH-USDT"},"data":[{"instId":"ETH-USDT","last":"nan","askPx":"2000.6","bidPx":"2000.4"}]}"#), .invalidPrice),
            (.text(#"{"arg":{"channel":"tickers","instId":"ETH-USDT"},"data":[{"instId":"ETH-USDT","last":"2000.5","askPx":"2000.3","bidPx":"2000.4"}]}"#), .crossedBook),
            (.text(#"{"arg":{"channel":"tickers","instId":"ETH-USDT"},"data":[{"instId":"ETH-USDT","last":"","askPx":"","bidPx":""}]}"#), .invalidPrice),
            (.text(#"{"arg":{"channel":"tickers","instId":"ETH-USDT"},"data":{"instId":"ETH-USDT"}}"#), .unknownMessage),
            (.text(#"{"arg":{"channel":"tickers","instId":"ETH-USDT"},"data":[{"last":"2000.5"}]}"#), .malformed),
            (.text("PONG"), .malformed),
        ],
        keepalive: .clientPings(.text("ping"), interval: .seconds(20), window: .seconds(30)),
        partialAck: true, refusable: "ETH-USDT")
}
