import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Issue #26 item 12: freshness per market. A live Binance stream that sends one market and never the
/// others hands the quiet ones to REST (`.restOnly`) after `stale_after`, and takes each back when its data
/// returns; the connection itself stays.
@Suite struct StreamMarketFreshnessTests {
    /// A BNBUSDT bookTicker with update id `u` (each push a newer one: older ids are dropped as out of order).
    static func bnb(_ u: Int) -> String { #"{"u":\#(400_900_300 + u),"s":"BNBUSDT","b":"25.40000000","B":"1.0","a":"25.41000000","A":"2.0"}"# }
    static let nkn = #"{"u":500900301,"s":"NKNUSDT","b":"0.35210000","B":"1.0","a":"0.35260000","A":"2.0"}"#

    @Test func aQuietMarketGoesToRESTAndComesBackWithItsData() async throws {
        try await withStream(.binance, staleAfter: .seconds(30)) { h in
            try await h.waitLive()
            let quiet: Set<MarketPair> = [
                MarketPair(base: "NKN", quote: "USDT"), MarketPair(base: "LRC", quote: "BTC"), MarketPair(base: "BNB", quote: "BTC"),
            ]
            var u = 0
            func nextBNB() -> String {
                u += 1
                return Self.bnb(u)
            }
            for _ in 0..<2 {
                h.server.push(nextBNB())
                try await h.advance(by: .seconds(10))
            }
            #expect(!h.all.contains { if case .restOnly = $0 { true } else { false } }, "nothing is stale before 30 s")
            for _ in 0..<3 where !h.all.contains(.restOnly(quiet)) {
                h.server.push(nextBNB())
                try await h.settle()
                try await h.advance(by: .seconds(5))
            }
            try await h.waitFor("the three quiet markets on REST") { $0.all.contains(.restOnly(quiet)) }
            // NKN sends again: it leaves REST at the next check; BNBUSDT never left the stream.
            h.server.push(Self.nkn)
            for _ in 0..<20 where !h.all.contains(.restOnly(quiet.subtracting([MarketPair(base: "NKN", quote: "USDT")]))) {
                try await h.settle()
                h.server.push(nextBNB())
                try await h.advance(by: .seconds(2))
            }
            try await h.waitFor("NKN/USDT back on the stream") {
                $0.all.contains(.restOnly(quiet.subtracting([MarketPair(base: "NKN", quote: "USDT")])))
            }
            #expect(h.downs.isEmpty, "\(h.downs)")
            #expect(h.server.connections.count == 1)
        }
    }
}

extension StreamMarketFreshnessTests {
    /// Markets found quiet at the same check are one warning naming them all (a whole-market rule can find
    /// hundreds at once), not a line each.
    @Test func quietMarketsFoundTogetherAreOneWarning() async throws {
        let recorder = LogRecorder()
        var logged = StreamCase.binance
        logged.makeSource = { url, clock, counters, staleAfter in
            WebSocketStreamSource(
                protocol: BinanceStream(), url: url, staleAfter: staleAfter, clock: clock, counters: counters,
                random: { 0.5 }, logger: recorder.logger(label: "stream-test"))
        }
        try await withStream(logged, staleAfter: .seconds(30)) { h in
            try await h.waitLive()
            let quiet: Set<MarketPair> = [
                MarketPair(base: "NKN", quote: "USDT"), MarketPair(base: "LRC", quote: "BTC"), MarketPair(base: "BNB", quote: "BTC"),
            ]
            var u = 0
            for _ in 0..<8 where !h.all.contains(.restOnly(quiet)) {
                u += 1
                // Each BNBUSDT push taken before the clock moves (an event, not a pause), so only the others go quiet.
                let before = h.quotes.filter { $0.market == "BNBUSDT" }.count
                h.server.push(Self.bnb(u))
                try await h.waitFor("BNBUSDT push \(u)") { h in h.quotes.filter { $0.market == "BNBUSDT" }.count > before }
                try await h.advance(by: .seconds(5))
            }
            try await h.waitFor("the three quiet markets on REST") { $0.all.contains(.restOnly(quiet)) }
            let warnings = recorder.all.filter { $0.level == .warning && $0.message.contains("quiet on the live stream") }
            #expect(warnings.count == 1, "\(warnings.map(\.text))")
            let named = Set((warnings.first?.metadata["markets"] ?? "").split(separator: ",").map(String.init))
            #expect(named == ["NKNUSDT", "LRCBTC", "BNBBTC"], "\(warnings.map(\.text))")
            #expect(warnings.first?.metadata["count"] == "3" && warnings.first?.metadata["source"] == "binance")
        }
    }
}

/// Issue #26 item 13 (streams): a server that floods control frames, or sends messages larger than the
/// decoder takes, is closed (not kept "live" at a full core).
@Suite struct StreamAbuseTests {
    @Test func aPingFloodClosesTheConnection() async throws {
        try await withStream(.binance) { h in
            try await h.waitLive()
            for _ in 0..<50 { h.server.ping(Data("x".utf8)) }
            try await h.waitDown()
            #expect(h.downs[0].contains("control frames"), "\(h.downs)")
        }
    }

    @Test func aFewPingsAreAnswered() async throws {
        try await withStream(.binance) { h in
            try await h.waitLive()
            for _ in 0..<3 { h.server.ping(Data("x".utf8)) }
            try await h.server.waitUntil("three pongs") { server in
                (server.connections.first?.received.filter { if case .pong = $0 { true } else { false } }.count ?? 0) >= 3
            }
            #expect(h.downs.isEmpty)
        }
    }

    @Test func anOversizedMessageIsRefusedFromItsHeader() async throws {
        try await withStream(.binance) { h in
            try await h.waitLive()
            // 2 MiB: over what the intake decodes (1 MiB), under the old 4 MiB connection limit.
            h.server.push(String(repeating: "a", count: 2 << 20))
            try await h.waitDown()
            #expect(h.downs[0].contains("over the limit"), "\(h.downs)")
            #expect(h.counters.snapshot.dropped[.oversized] == nil, "refused from its header, never buffered and decoded")
        }
    }
}
