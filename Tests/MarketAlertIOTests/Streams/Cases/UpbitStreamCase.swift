import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Recorded Upbit `orderbook` frames (SIMPLE format, binary, cryptofeed 2021-04-17) and a SIMPLE ticker.
    static let upbit = StreamCase(
        name: "upbit", exchange: .upbit, path: "/websocket/v1",
        pairs: [MarketPair(base: "LAMB", quote: "KRW"), MarketPair(base: "WAVES", quote: "KRW"), MarketPair(base: "BTC", quote: "KRW")],
        makeSource: source(UpbitStream()),
        persona: StreamPersonas.of(.upbit),
        expectedTopics: ["ticker:KRW-BTC", "ticker:KRW-LAMB", "ticker:KRW-WAVES", "orderbook:KRW-BTC.1", "orderbook:KRW-LAMB.1", "orderbook:KRW-WAVES.1"],
        topics: upbitStyleTopics,
        recorded: binaryLines("streams/upbit/orderbook-SIMPLE-20210417-cryptofeed.jsonl") + binaryLines("streams/upbit/ticker-SIMPLE-constructed.jsonl"),
        expected: [
            "KRW-LAMB": Expected(bid: "126.0", ask: "127.0", last: "127.0"),
            "KRW-WAVES": Expected(bid: "20190.0", ask: "20230.0"),
        ],
        fresh: .binary(Data(#"{"ty":"orderbook","cd":"KRW-BTC","tms":1618678263000,"tas":1.5,"tbs":2.5,"obu":[{"ap":68000000.0,"bp":67990000.0,"as":0.5,"bs":0.25}],"st":"REALTIME"}"#.utf8)),
        freshMarket: "KRW-BTC", freshExpected: Expected(bid: "67990000", ask: "68000000", last: "100"),
        bad: upbitStyleBad(simple: true),
        keepalive: .clientPings(.ping(Data()), interval: .seconds(30), window: .seconds(45)),
        liveOnFirstData: true)

    static let upbitStyleTopics: @Sendable ([String]) -> Set<String> = { texts in
        Set(texts.flatMap { text -> [String] in
            let objects = StreamPersonas.array(text) as? [[String: Any]] ?? []
            return objects.flatMap { object -> [String] in
                guard let type = object["type"] as? String else { return [] }
                return (object["codes"] as? [String] ?? []).map { "\(type):\($0)" }
            }
        })
    }

    static func upbitStyleBad(simple: Bool) -> [(Frame, StreamDropReason)] {
        let frames: [(String, StreamDropReason)] = simple ? [
            (#"{"ty":"orderbook","cd":"KRW-BTC","obu":[{"ap":0,"bp":67990000.0}]}"#, .invalidPrice),
            (#"{"ty":"orderbook","cd":"KRW-BTC","obu":[{"ap":68000000.0,"bp":-5}]}"#, .invalidPrice),
            (#"{"ty":"orderbook","cd":"KRW-BTC","obu":[{"ap":68000000.0,"bp":68000001.0}]}"#, .crossedBook),
            (#"{"ty":"ticker","cd":"KRW-BTC","tp":"NaN"}"#, .invalidPrice),
            (#"{"ty":"ticker","cd":"KRW-BTC"}"#, .malformed),
            (#"{"ty":"orderbook","cd":"KRW-BTC","obu":{"ap":1}}"#, .malformed),
            (#"{"foo":"bar"}"#, .unknownMessage),
        ] : [
            (#"{"type":"orderbook","code":"KRW-BTC","orderbook_units":[{"ask_price":0,"bid_price":493100}]}"#, .invalidPrice),
            (#"{"type":"orderbook","code":"KRW-BTC","orderbook_units":[{"ask_price":493200,"bid_price":1e400}]}"#, .invalidPrice),
            (#"{"type":"orderbook","code":"KRW-BTC","orderbook_units":[{"ask_price":493200,"bid_price":493300}]}"#, .crossedBook),
            (#"{"type":"ticker","code":"KRW-BTC","trade_price":-493100}"#, .invalidPrice),
            (#"{"type":"ticker","trade_price":493100}"#, .malformed),
            (#"{"foo":"bar"}"#, .unknownMessage),
        ]
        return frames.map { (.binary(Data($0.0.utf8)), $0.1) }
    }

    /// Frames from a fixture file, one per line, sent as binary frames (as Upbit does).
    static func binaryLines(_ path: String) -> [Frame] {
        lines(path).map { frame in
            if case .text(let text) = frame { return .binary(Data(text.utf8)) }
            return frame
        }
    }
}
