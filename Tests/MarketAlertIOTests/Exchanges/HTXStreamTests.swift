import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// HTX's gzip frames: the bytes HTX really sent decode (an ack, a ping answered with its pong), inflation
/// reuses its memory and keeps to its limit, and an error names a market only when it is about one.
@Suite struct HTXStreamTests {
    static func recorded() throws -> [Data] {
        try Fixtures.string("streams/htx/gzip-frames-20210417-cryptofeed.b64").split(separator: "\n").map { line in
            try #require(Data(base64Encoded: String(line)))
        }
    }

    static func decode(_ bytes: Data, _ table: inout StreamMarketTable) -> StreamFrame {
        table.beginFrame()
        return bytes.withUnsafeBytes { HTXStream().decode($0, into: &table, receivedAt: Date(timeIntervalSince1970: 1_618_678_074)) }
    }

    @Test func theFramesHTXSentDecodeAndItsPingGetsItsPong() throws {
        let frames = try Self.recorded()
        #expect(frames.count == 2)
        var table = StreamMarketTable(pairs: [MarketPair(base: "TRIO", quote: "ETH")], marketID: HTXStream().marketID)
        #expect(Self.decode(frames[0], &table) == .acked(keys: ["market.trioeth.depth.step0"], complete: false))
        #expect(Self.decode(frames[1], &table) == .reply(#"{"pong":1618678073643}"#))
        // The same text uncompressed reads the same (fuzz seeds and kit checks are plain text).
        #expect(Self.decode(Data(#"{"ping":1618678073643}"#.utf8), &table) == .reply(#"{"pong":1618678073643}"#))
    }

    @Test func inflationGrowsItsMemoryOnceAndKeepsToItsLimit() throws {
        let padding = String(repeating: "x", count: 100_000)
        let text = #"{"ch":"market.btcusdt.ticker","ts":1630982370526,"tick":{"lastPrice":52735.63,"pad":"\#(padding)"}}"#
        let member = HTXGzip.compress(text)
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USDT")], marketID: HTXStream().marketID)
        #expect(Self.decode(member, &table) == .data)
        #expect(table.entries[0].last?.exact == Decimal(string: "52735.63"))
        let grown = table.scratch.count
        #expect(grown >= text.utf8.count)
        #expect(Self.decode(member, &table) == .data)
        #expect(table.scratch.count == grown, "the second frame reuses the memory")
        var scratch: [UInt8] = []
        let limited = member.withUnsafeBytes { HTXGzip.inflate($0, scratch: &scratch, limit: 50_000) { $0.count } }
        #expect(limited == nil)
        let whole = member.withUnsafeBytes { HTXGzip.inflate($0, scratch: &scratch, limit: 1 << 20) { $0.count } }
        #expect(whole == text.utf8.count)
        // Two members back to back are not one frame.
        let twice = member + member
        #expect(twice.withUnsafeBytes { HTXGzip.inflate($0, scratch: &scratch, limit: 1 << 20) { $0.count } } == nil)
    }

    @Test func anErrorNamesMarketsOnlyWhenItIsAboutATopicOrSymbol() {
        #expect(HTXStream.refused(code: "bad-request", text: "invalid topic market.xyzusdt.ticker", id: "market.xyzusdt.ticker").contains("xyzusdt"))
        #expect(HTXStream.refused(code: "bad-request", text: "invalid symbol", id: "market.xyzusdt.bbo").contains("xyzusdt"))
        #expect(HTXStream.refused(code: "bad-request", text: "429 too many request", id: "market.btcusdt.bbo").isEmpty)
        #expect(HTXStream.refused(code: "invalid-parameter", text: "invalid topic market.xyzusdt.ticker", id: nil).isEmpty)
    }

    @Test func theSubscriptionAsksForBothTopicsOfEveryMarketEachAcknowledged() {
        let subscription = HTXStream().subscription(for: ["btcusdt"])
        #expect(subscription.messages == [#"{"sub":"market.btcusdt.bbo","id":"market.btcusdt.bbo"}"#, #"{"sub":"market.btcusdt.ticker","id":"market.btcusdt.ticker"}"#])
        #expect(subscription.acks == ["market.btcusdt.bbo", "market.btcusdt.ticker"])
    }
}
