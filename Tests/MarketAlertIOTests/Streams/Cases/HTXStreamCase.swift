import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// HTX: every frame gzip-compressed in a binary frame. The documentation's `market.btcusdt.ticker` push
    /// and ccxt's recorded-shape `market.btcusdt.bbo` push (compressed here), and a real ping as HTX sent it
    /// (cryptofeed, 2021-04-17, bytes unchanged).
    static let htx = StreamCase(
        name: "htx", exchange: .htx, path: "/ws",
        pairs: [MarketPair(base: "BTC", quote: "USDT"), MarketPair(base: "ETH", quote: "USDT")],
        makeSource: source(HTXStream()),
        persona: StreamPersonas.of(.htx),
        expectedTopics: ["market.btcusdt.bbo", "market.btcusdt.ticker", "market.ethusdt.bbo", "market.ethusdt.ticker"],
        topics: { texts in Set(texts.compactMap { StreamPersonas.object($0)?["sub"] as? String }) },
        recorded: lines("streams/htx/docs-examples.jsonl").map(gzipped) + [htxRecordedPing],
        expected: ["btcusdt": Expected(bid: "16829.5", ask: "16829.51", last: "52735.63")],
        fresh: gzipped(#"{"ch":"market.ethusdt.bbo","ts":1671941599613,"tick":{"seqId":5,"ask":2000.6,"askSize":1.0,"bid":2000.4,"bidSize":1.0,"quoteTime":1671941599612,"symbol":"ethusdt"}}"#),
        freshMarket: "ethusdt", freshExpected: Expected(bid: "2000.4", ask: "2000.6"),
        bad: [
            (gzipped(#"{"ch":"market.ethusdt.bbo","ts":1,"tick":{"ask":2000.6,"bid":0,"quoteTime":1671941599612}}"#), .invalidPrice),
            (gzipped(#"{"ch":"market.ethusdt.bbo","ts":1,"tick":{"ask":-1,"bid":2000.4,"quoteTime":1671941599612}}"#), .invalidPrice),
            (gzipped(#"{"ch":"market.ethusdt.ticker","ts":1,"tick":{"lastPrice":"NaN"}}"#), .invalidPrice),
            (gzipped(#"{"ch":"market.ethusdt.bbo","ts":1,"tick":{"ask":2000.3,"bid":2000.4}}"#), .crossedBook),
            (gzipped(#"{"ch":"market.ethusdt.bbo","ts":1,"tick":[2000.4]}"#), .malformed),
            (gzipped(#"{"ch":"market.ethusdt","ts":1,"tick":{"bid":2000.4}}"#), .malformed),
            (gzipped(#"{"ch":"market.ethusdt.bbo","ts":1,"tick":{"bid":2000.4"#), .malformed),
            (gzipped(#"{"ping":"soon"}"#), .malformed),
            (gzipped(#"{"hello":"world"}"#), .unknownMessage),
            // gzip whose CRC no longer matches its text, and a member cut short.
            (.binary(corrupted(HTXGzip.compress(#"{"ping":1618678073643}"#))), .malformed),
            (.binary(HTXGzip.compress(#"{"ping":1618678073643}"#).dropLast(6)), .malformed),
        ],
        keepalive: .serverMessagePings(gzipped(#"{"ping":1492420473027}"#), pong: #"{"pong":1492420473027}"#, window: .seconds(15)))

    /// `text` as HTX sends it: one gzip member in a binary frame.
    static func gzipped(_ frame: Frame) -> Frame {
        if case .text(let text) = frame { return gzipped(text) }
        return frame
    }

    static func gzipped(_ text: String) -> Frame { .binary(HTXGzip.compress(text)) }

    /// The gzip member with one byte of its CRC-32 trailer flipped.
    static func corrupted(_ member: Data) -> Data {
        var bytes = [UInt8](member)
        bytes[bytes.count - 8] ^= 0xFF
        return Data(bytes)
    }

    /// HTX's `{"ping":1618678073643}` exactly as it came off the wire (`streams/htx/gzip-frames-20210417-cryptofeed.b64`, line 2).
    static let htxRecordedPing: Frame = {
        let lines = ((try? Fixtures.string("streams/htx/gzip-frames-20210417-cryptofeed.b64")) ?? "").split(separator: "\n")
        return .binary(lines.count > 1 ? Data(base64Encoded: String(lines[1])) ?? Data() : Data())
    }()
}
