import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// How the states of an exchange's several connections merge into the one its consumer hears.
@Suite struct ShardedStreamStatusTests {
    static let btc = MarketPair(base: "BTC", quote: "USDT")
    static let eth = MarketPair(base: "ETH", quote: "USDT")
    static let sol = MarketPair(base: "SOL", quote: "USDT")
    static let xrp = MarketPair(base: "XRP", quote: "USDT")

    /// Three connections: BTC+ETH, SOL, XRP.
    static func three() -> ShardedStreamStatus { ShardedStreamStatus(shards: [[btc, eth], [sol], [xrp]]) }

    @Test func liveOnlyOnceEveryConnectionIsLive() {
        var status = Self.three()
        #expect(status.receive(.live, from: 0) == [])
        #expect(status.receive(.live, from: 2) == [])
        #expect(!status.isLive)
        #expect(status.receive(.live, from: 1) == [.live])
        #expect(status.isLive)
        // A connection live again (a replacement after 24 h) says nothing new.
        #expect(status.receive(.live, from: 1) == [])
    }

    @Test func oneConnectionDownTakesTheExchangeDownNamingIt() {
        var status = Self.three()
        for shard in 0..<3 { _ = status.receive(.live, from: shard) }
        #expect(status.receive(.down(reason: "closed by the server"), from: 1) == [.down(reason: "connection 2 of 3: closed by the server")])
        // Each further down is told, as a single connection's repeated downs are.
        #expect(status.receive(.down(reason: "connect failed"), from: 1) == [.down(reason: "connection 2 of 3: connect failed")])
        #expect(status.receive(.live, from: 0) == [])
        #expect(status.receive(.live, from: 1) == [.live])
    }

    @Test func downBeforeAnyLiveIsPassedOn() {
        var status = Self.three()
        #expect(status.receive(.down(reason: "connect failed"), from: 2) == [.down(reason: "connection 3 of 3: connect failed")])
        #expect(status.receive(.live, from: 0) == [])
        #expect(status.receive(.live, from: 1) == [])
        #expect(status.receive(.live, from: 2) == [.live])
    }

    @Test func restOnlySetsAreUnionedAndToldWhenTheUnionChanges() {
        var status = Self.three()
        #expect(status.receive(.restOnly([Self.eth]), from: 0) == [.restOnly([Self.eth])])
        #expect(status.receive(.restOnly([Self.xrp]), from: 2) == [.restOnly([Self.eth, Self.xrp])])
        // The same set again changes nothing.
        #expect(status.receive(.restOnly([Self.xrp]), from: 2) == [])
        #expect(status.receive(.restOnly([]), from: 0) == [.restOnly([Self.xrp])])
        #expect(status.receive(.restOnly([]), from: 2) == [.restOnly([])])
    }

    @Test func aConnectionWhoseEveryMarketIsRefusedDoesNotHoldTheExchangeDown() {
        var status = Self.three()
        _ = status.receive(.live, from: 0)
        _ = status.receive(.live, from: 1)
        // XRP refused: the driver tells REST first, then pauses its connection with a down.
        #expect(status.receive(.restOnly([Self.xrp]), from: 2) == [.restOnly([Self.xrp]), .live])
        #expect(status.receive(.down(reason: "every watched market was refused"), from: 2) == [])
        #expect(status.isLive)
        // Asked for again: the market leaves REST only once its data comes, while that connection is live.
        #expect(status.receive(.live, from: 2) == [])
        #expect(status.receive(.restOnly([]), from: 2) == [.restOnly([])])
        #expect(status.isLive)
    }

    @Test func marketsLeavingRestOnABrokenConnectionTakeTheExchangeDown() {
        var status = Self.three()
        _ = status.receive(.live, from: 0)
        _ = status.receive(.live, from: 1)
        _ = status.receive(.restOnly([Self.xrp]), from: 2)
        _ = status.receive(.down(reason: "paused"), from: 2)
        let out = status.receive(.restOnly([]), from: 2)
        #expect(out.first == .restOnly([]))
        #expect(out.count == 2)
        if case .down(let reason)? = out.last { #expect(reason.hasPrefix("connection 3 of 3:")) } else { Issue.record("no down: \(out)") }
        #expect(!status.isLive)
    }

    @Test func everyConnectionRefusedWholeIsDown() {
        var status = ShardedStreamStatus(shards: [[Self.btc], [Self.eth]])
        #expect(status.receive(.restOnly([Self.btc]), from: 0) == [.restOnly([Self.btc])])
        #expect(status.receive(.down(reason: "refused"), from: 0) == [.down(reason: "connection 1 of 2: refused")])
        _ = status.receive(.restOnly([Self.eth]), from: 1)
        #expect(!status.isLive)
    }

    @Test func quotesPassUnchangedAndAnUnknownShardIsIgnored() {
        var status = Self.three()
        #expect(status.receive(.quotes([]), from: 1) == [.quotes([])])
        #expect(status.receive(.live, from: 7) == [])
    }

    @Test func sharesFollowTheLimitInMarketIdOrder() {
        let pairs: Set<MarketPair> = [Self.btc, Self.eth, Self.sol, Self.xrp, MarketPair(base: "ADA", quote: "USDT")]
        let id: (MarketPair) -> String = { "\($0.base)-\($0.quote)" }
        let shards = WebSocketStreamSource<OKXStream>.shards(of: pairs, limit: 2, marketID: id)
        #expect(shards.map { $0.map(id).sorted() } == [["ADA-USDT", "BTC-USDT"], ["ETH-USDT", "SOL-USDT"], ["XRP-USDT"]])
        #expect(WebSocketStreamSource<OKXStream>.shards(of: pairs, limit: 5, marketID: id) == [pairs])
        #expect(WebSocketStreamSource<OKXStream>.shards(of: pairs, limit: nil, marketID: id) == [pairs])
        // 30 at 25 a connection: two of 15, not 25 and 5.
        let thirty = Set((0..<30).map { MarketPair(base: "A\($0)", quote: "USD") })
        #expect(WebSocketStreamSource<OKXStream>.shards(of: thirty, limit: 25, marketID: id).map(\.count) == [15, 15])
    }
}
