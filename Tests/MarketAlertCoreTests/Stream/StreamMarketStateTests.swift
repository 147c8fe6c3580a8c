import Foundation
import Testing
@testable import MarketAlertCore

/// Issue #26 items 1, 2 and 12 as pure logic on virtual time: a refused market is asked for again after 1 min,
/// doubling to 1 h; a refusal keeps the connection (its acks are dropped, the rest goes live); nothing left to
/// stream pauses the connection until a market is asked for again; a quiet market is stale on its own.
@Suite struct StreamMarketStateTests {
    typealias H = StreamMachineHarness
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    @Test func aRefusedMarketIsAskedForAgainAfterOneMinuteDoublingToAnHour() {
        var retry = StreamMarketRetry()
        var now = Self.t0
        var waits: [Double] = []
        for _ in 0..<9 {
            let until = retry.refuse("XYZ-USDT", now: now)
            waits.append(until.timeIntervalSince(now))
            #expect(retry.held == ["XYZ-USDT"])
            let early = retry.takeDue(now: until.addingTimeInterval(-1))
            #expect(early.isEmpty)
            now = until
            let due = retry.takeDue(now: now)
            #expect(due == ["XYZ-USDT"])
            #expect(retry.held.isEmpty)
            #expect(retry.notStreaming == ["XYZ-USDT"], "REST keeps it until its data arrives")
        }
        #expect(waits == [60, 120, 240, 480, 960, 1920, 3600, 3600, 3600])
        // Its data arrived: the refusals are forgotten, the next one waits a minute again.
        let streamed = retry.streamed("XYZ-USDT")
        #expect(streamed)
        #expect(retry.notStreaming.isEmpty)
        let again = retry.refuse("XYZ-USDT", now: now)
        #expect(again.timeIntervalSince(now) == 60)
        // A refusal repeated while held keeps the wait it has.
        let repeated = retry.refuse("XYZ-USDT", now: now.addingTimeInterval(30))
        #expect(repeated.timeIntervalSince(now) == 60)
        #expect(retry.nextDeadline == now.addingTimeInterval(60))
    }

    @Test func aQuietMarketIsStaleOnItsOwnAndComesBackWithItsData() {
        var freshness = StreamMarketFreshness(staleAfter: .seconds(30))
        let watched = [true, true, false]
        let before = freshness.check(now: Self.t0.addingTimeInterval(100), lastData: [.distantPast, .distantPast, .distantPast], watched: watched)
        #expect(before.stale.isEmpty && before.recovered.isEmpty, "nothing is checked before the stream is live")
        freshness.live(now: Self.t0)
        var last: [Date] = [.distantPast, .distantPast, .distantPast]
        // BTC (0) sends every 10 s, ETH (1) never; the refused market (2) is not checked.
        var staleAt: [Double] = []
        for second in stride(from: 10, through: 60, by: 10) {
            let now = Self.t0.addingTimeInterval(Double(second))
            last[0] = now
            let (stale, recovered) = freshness.check(now: now, lastData: last, watched: watched)
            #expect(recovered.isEmpty)
            if stale.contains(1) { staleAt.append(Double(second)) }
            #expect(!stale.contains(0) && !stale.contains(2))
        }
        #expect(staleAt == [30])
        #expect(freshness.stale.keys.sorted() == [1])
        #expect(freshness.nextDeadline(lastData: last, watched: watched) == Self.t0.addingTimeInterval(90))
        last[1] = Self.t0.addingTimeInterval(65)
        let back = freshness.check(now: Self.t0.addingTimeInterval(66), lastData: last, watched: watched)
        #expect(back.stale.isEmpty && back.recovered == [1])
        #expect(freshness.stale.isEmpty)
        freshness.down()
        let afterDown = freshness.check(now: Self.t0.addingTimeInterval(1000), lastData: last, watched: watched)
        #expect(afterDown.stale.isEmpty && afterDown.recovered.isEmpty)
    }

    @Test func aRefusalDropsItsAcksAndTheRestGoesLiveOnTheSameConnection() {
        var h = H(H.configuration(messages: 1, acks: ["ticker:BTC/USD", "ticker:ETH/USD"]))
        h.send(.start)
        let id = h.lastConnect
        h.send(.connected(id))
        h.send(.acked(id, keys: ["ticker:BTC/USD"], complete: false))
        h.machine.updateSubscription(messages: 1, acks: ["ticker:BTC/USD"])
        let actions = h.send(.resubscribe(id, drop: ["ticker:ETH/USD"], messages: [], acks: []))
        #expect(actions == [.live])
        #expect(h.downs.isEmpty)
        #expect(h.connects == [id])
    }

    @Test func aWholeMessageRefusalAsksForTheOthersAgainOnTheSameConnection() {
        var h = H(H.configuration(messages: 1, acks: ["req:sub-BTCUSDT"]))
        h.send(.start)
        let id = h.lastConnect
        h.send(.connected(id))
        let again = #"{"req_id":"sub-BTCUSDT2","op":"subscribe"}"#
        let actions = h.send(.resubscribe(id, drop: ["req:sub-BTCUSDT"], messages: [again], acks: ["req:sub-BTCUSDT2"]))
        #expect(actions == [.send(id, .message(again))])
        #expect(!h.machine.isLive)
        #expect(h.send(.acked(id, keys: ["req:sub-BTCUSDT2"], complete: false)) == [.live])
        #expect(h.connects == [id])
    }

    @Test func nothingLeftToStreamPausesUntilStartAgain() {
        var h = H(H.configuration())
        h.send(.start)
        let first = h.goLive()
        let actions = h.send(.pause)
        #expect(actions == [.close(first, reason: "nothing left to stream")])
        #expect(!h.machine.isLive)
        h.run(for: .seconds(3600))
        #expect(h.connects == [first], "no reconnect while paused")
        #expect(h.machine.nextDeadline == nil)
        #expect(h.send(.start) == [.connect(StreamLinkID(2))])
    }

    @Test func aConnectionSubscribesToWhatIsWatchedWhenItConnects() {
        var h = H(H.configuration(messages: 1, acks: ["ticker:BTC/USD", "ticker:ETH/USD"]))
        h.send(.start)
        let id = h.lastConnect
        // ETH was refused (on an earlier connection) while this one was connecting.
        h.machine.updateSubscription(messages: 1, acks: ["ticker:BTC/USD"])
        h.send(.connected(id))
        #expect(h.send(.acked(id, keys: ["ticker:BTC/USD"], complete: false)) == [.live])
    }
}
