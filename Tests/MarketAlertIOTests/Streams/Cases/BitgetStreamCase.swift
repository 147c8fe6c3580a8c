import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Bitget v2 spot ticker pushes in the documented schema (see PROVENANCE.md: constructed).
    static let bitget = StreamCase(
        name: "bitget", exchange: .bitget, path: "/v2/ws/public",
        pairs: [MarketPair(base: "ETH", quote: "USDT"), MarketPair(base: "BTC", quote: "USDT")],
        makeSource: source(BitgetStream()),
        persona: StreamPersonas.of(.bitget),
        expectedTopics: ["ticker:BTCUSDT", "ticker:ETHUSDT"],
        topics: { texts in
            Set(texts.flatMap { text -> [String] in
                let args = StreamPersonas.object(text)?["args"] as? [[String: Any]] ?? []
                return args.map { "\($0["channel"] ?? ""):\($0["instId"] ?? "")" }
            })
        },
        recorded: lines("streams/bitget/ticker-v2-constructed.jsonl"),
        expected: ["ETHUSDT": Expected(bid: "2200.11", ask: "2200.13", last: "2200.12")],
        fresh: .text(#"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},"data":[{"instId":"BTCUSDT","lastPr":"43000.5","bidPr":"43000.4","askPr":"43000.6","bidSz":"1","askSz":"1","ts":"1701842994338"}],"ts":1701842994341}"#),
        freshMarket: "BTCUSDT", freshExpected: Expected(bid: "43000.4", ask: "43000.6", last: "43000.5"),
        bad: [
            (.text(#"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},"data":[{"instId":"BTCUSDT","lastPr":"0.000","bidPr":"43000.4","askPr":"43000.6"}]}"#), .invalidPrice),
            (.text(#"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},"data":[{"instId":"BTCUSDT","lastPr":"43000.5","bidPr":"-43000.4","askPr":"43000.6"}]}"#), .invalidPrice),
            (.text(#"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},"data":[{"instId":"BTCUSDT","lastPr":"43000.5","bidPr":"43000.4","askPr":"1e999"}]}"#), .invalidPrice),
            (.text(#"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},"data":[{"instId":"BTCUSDT","lastPr":"43000.5","bidPr":"43000.7","askPr":"43000.6"}]}"#), .crossedBook),
            (.text(#"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},"data":[{"lastPr":"43000.5"}]}"#), .malformed),
            (.text(#"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"}}"#), .unknownMessage),
        ],
        keepalive: .clientPings(.text("ping"), interval: .seconds(30), window: .seconds(45)),
        partialAck: true, refusable: "BTCUSDT")
}
