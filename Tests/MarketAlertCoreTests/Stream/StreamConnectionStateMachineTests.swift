import Foundation
import Testing
@testable import MarketAlertCore

/// The stream connection logic on virtual time: subscription and acks, the two liveness checks, backoff,
/// pacing and make-before-break renewal.
@Suite struct StreamConnectionStateMachineTests {
    typealias H = StreamMachineHarness

    @Test func connectsSubscribesAndGoesLiveOnlyWhenEveryAckArrived() {
        var h = H(H.configuration(messages: 2, acks: ["id:1", "id:2"]))
        #expect(h.send(.start) == [.connect(StreamLinkID(1))])
        let id = h.lastConnect
        #expect(h.send(.connected(id)) == [.send(id, .subscribe(0)), .send(id, .subscribe(1))])
        #expect(h.send(.acked(id, keys: ["id:1"], complete: false)).isEmpty)
        #expect(!h.machine.isLive)
        #expect(h.send(.acked(id, keys: ["id:2"], complete: false)) == [.live])
        #expect(h.machine.isLive)
        // A repeated ack changes nothing and never reports live twice.
        #expect(h.send(.acked(id, keys: ["id:2"], complete: false)).isEmpty)
        #expect(h.lives == 1)
    }

    @Test func aCompleteAckThatLacksASubscriptionIsAPartialAckAndAnError() {
        var h = H(H.configuration(acks: ["ticker:BTC-USD", "ticker:ETH-USD"]))
        h.send(.start)
        let id = h.lastConnect
        h.send(.connected(id))
        let actions = h.send(.acked(id, keys: ["ticker:BTC-USD"], complete: true))
        #expect(actions.contains(.close(id, reason: "partial subscription ack: 1 not acknowledged (ticker:ETH-USD)")))
        #expect(h.downs.count == 1)
        #expect(h.downs[0].hasPrefix("partial subscription ack"))
        #expect(!h.machine.isLive)
        #expect(h.lives == 0)
    }

    @Test func anInBandErrorClosesReportsDownAndRetriesWithBackoff() {
        var h = H(H.configuration())
        h.send(.start)
        let first = h.goLive()
        h.send(.rejected(first, reason: "Invalid request"))
        #expect(h.closes(first) == ["exchange error: Invalid request"])
        #expect(h.downs.last == "exchange error: Invalid request; reconnecting in 1s")
        h.run(for: .milliseconds(999))
        #expect(h.connects.count == 1)
        h.run(for: .milliseconds(1))
        #expect(h.connects.count == 2)
    }

    @Test func acksThatNeverComeTimeOut() {
        var h = H(H.configuration())
        h.send(.start)
        h.send(.connected(h.lastConnect))
        h.run(for: .seconds(9))
        #expect(h.downs.isEmpty)
        h.run(for: .seconds(1))
        #expect(h.downs == ["1 subscription(s) not acknowledged within 10s of connecting; reconnecting in 1s"])
    }

    @Test func aHandshakeThatHangsTimesOut() {
        var h = H(H.configuration())
        h.send(.start)
        let id = h.lastConnect
        h.run(for: .seconds(10))
        #expect(h.closes(id) == ["connect timed out after 10s"])
        #expect(h.downs.count == 1)
    }

    @Test func noMarketDataForStaleAfterReconnectsEvenWithHeartbeats() {
        var h = H(H.configuration(keepalive: .serverDriven(window: .seconds(10))))
        h.send(.start)
        let id = h.goLive()
        // Heartbeats every 5 s keep the transport alive but are not market data.
        for _ in 0..<5 {
            h.run(for: .seconds(5))
            h.send(.heartbeat(id))
        }
        #expect(h.seconds == 25)
        #expect(h.downs.isEmpty)
        h.run(for: .seconds(4))
        h.send(.heartbeat(id))
        #expect(h.downs.isEmpty)
        h.run(for: .seconds(1))
        #expect(h.downs == ["stale: no market data for 30s; reconnecting in 1s"])
        #expect(h.closes(id) == ["stale: no market data for 30s"])
        h.run(for: .seconds(1))
        #expect(h.connects.count == 2)
        // Back: the new connection goes live again.
        _ = h.goLive()
        #expect(h.lives == 2)
    }

    @Test func marketDataFromAnyMarketKeepsTheConnectionFresh() {
        // Staleness is per connection: one quiet market among busy ones never reconnects.
        var h = H(H.configuration())
        h.send(.start)
        let id = h.goLive()
        for _ in 0..<100 {
            h.run(for: .seconds(20))
            h.send(.data(id))
        }
        #expect(h.downs.isEmpty)
        #expect(h.connects.count == 1)
    }

    @Test func aSilentTransportIsDeadBeforeItIsStale() {
        var h = H(H.configuration(keepalive: .serverDriven(window: .seconds(10))))
        h.send(.start)
        let id = h.goLive()
        h.run(for: .seconds(10))
        #expect(h.closes(id) == ["transport silent: no frame, pong or heartbeat for 10s"])
    }

    @Test func clientPingsGoOutEveryIntervalOnlyOnceConnected() {
        var h = H(H.configuration(keepalive: .clientPings(.message, every: .seconds(20), window: .seconds(30))))
        h.send(.start)
        h.run(for: .seconds(5))
        let id = h.lastConnect
        #expect(h.sends(id).isEmpty)
        h.send(.connected(id))
        h.send(.acked(id, keys: ["id:1"], complete: false))
        for _ in 0..<6 {
            h.run(for: .seconds(10))
            h.send(.data(id))
            h.send(.heartbeat(id))  // the pong
        }
        let pings = h.times { if case .send(_, .ping) = $0 { return true } else { return false } }
        #expect(pings == [25, 45, 65])
        #expect(h.downs.isEmpty)
    }

    /// An endpoint that asks for its own keepalive (KuCoin's bullet) sets this connection's pings and window.
    @Test func aConnectionsOwnKeepaliveReplacesTheProtocolsForIt() {
        var h = H(H.configuration(keepalive: .clientPings(.message, every: .seconds(20), window: .seconds(30)), staleAfter: .seconds(300)))
        h.send(.start)
        let id = h.lastConnect
        h.send(.keepalive(id, StreamKeepalive(ping: .message, interval: .seconds(5), window: .seconds(7))))
        h.send(.connected(id))
        h.send(.acked(id, keys: ["id:1"], complete: false))
        for _ in 0..<3 {
            h.run(for: .seconds(5))
            h.send(.heartbeat(id))  // the pong
        }
        let pings = h.times { if case .send(_, .ping) = $0 { return true } else { return false } }
        #expect(pings == [5, 10, 15])
        #expect(h.downs.isEmpty)
        // No answer for 7 s: the connection's own window, not the protocol's 30 s.
        h.run(for: .seconds(7))
        #expect(h.closes(id) == ["transport silent: no frame, pong or heartbeat for 7s"])
    }

    @Test func aPingWithoutAnyAnswerKillsTheTransport() {
        var h = H(H.configuration(keepalive: .clientPings(.protocolFrame, every: .seconds(20), window: .seconds(30)), staleAfter: .seconds(300)))
        h.send(.start)
        let id = h.goLive()
        h.run(for: .seconds(29))
        #expect(h.sends(id).contains(.ping))
        #expect(h.downs.isEmpty)
        h.run(for: .seconds(1))
        #expect(h.downs.first?.hasPrefix("transport silent") == true)
    }

    @Test func serverPingsAreAnsweredWithTheirPayloadWithinTheMessageLimit() {
        // Binance: 5 client messages per second, pongs included.
        var h = H(H.configuration(limit: OutboundPacer(limit: 5, per: .seconds(1)), messages: 7,
                                  acks: Set((1...7).map { "id:\($0)" })))
        h.send(.start)
        let id = h.lastConnect
        let first = h.send(.connected(id))
        #expect(first.count == 5)
        h.send(.serverPing(id, payload: [1, 2, 3]))
        h.send(.serverPing(id, payload: [4, 5]))  // replaces the unanswered one
        h.run(for: .seconds(2))
        let sent = h.log.filter { if case .send = $0.action { return true } else { return false } }
        #expect(sent.count == 8)
        #expect(sent.suffix(3).map(\.action) == [.send(id, .subscribe(5)), .send(id, .subscribe(6)), .send(id, .pong(payload: [4, 5]))])
        #expect(sent.suffix(3).allSatisfy { h.elapsed($0.at) == 1 })
        // Never more than 5 in any one-second window.
        let times = sent.map { h.elapsed($0.at) }
        for time in times { #expect(times.filter { $0 >= time && $0 < time + 1 }.count <= 5) }
    }

    @Test func backoffGrowsExponentiallyWithoutAStormWhenAServerAcceptsAndDrops() {
        var h = H(H.configuration())
        h.send(.start)
        // Each connection goes live, then is dropped at once: not stable, so failures keep counting.
        for _ in 0..<8 {
            let id = h.goLive()
            h.send(.closed(id, reason: "dropped"))
            h.runUntilConnect()
        }
        let connectTimes = h.times { if case .connect = $0 { return true } else { return false } }
        let gaps = zip(connectTimes.dropFirst(), connectTimes).map { $0 - $1 }
        #expect(gaps == [1, 2, 4, 8, 16, 32, 60, 60])
    }

    @Test func failuresResetAfterAStableConnection() {
        var h = H(H.configuration())
        h.send(.start)
        var id = h.goLive()
        h.send(.closed(id, reason: "dropped"))
        h.run(for: .seconds(1))
        id = h.goLive()
        h.send(.closed(id, reason: "dropped"))
        #expect(h.downs.last?.hasSuffix("reconnecting in 2s") == true)
        h.run(for: .seconds(2))
        id = h.goLive()
        for _ in 0..<4 {
            h.run(for: .seconds(20))
            h.send(.data(id))
        }
        h.send(.closed(id, reason: "dropped after 80s"))
        #expect(h.downs.last == "dropped after 80s; reconnecting in 1s")
    }

    @Test func jitterSpreadsTheDelay() {
        var low = H(H.configuration(jitter: 0.2), random: 0)
        var high = H(H.configuration(jitter: 0.2), random: 0.999)
        low.send(.start)
        high.send(.start)
        low.send(.connectFailed(low.lastConnect, reason: "refused"))
        high.send(.connectFailed(high.lastConnect, reason: "refused"))
        #expect(low.downs == ["connect failed: refused; reconnecting in 0.8s"])
        #expect(high.downs == ["connect failed: refused; reconnecting in 1.2s"])
    }

    @Test func eventsFromAConnectionGivenUpOnAreIgnored() {
        var h = H(H.configuration())
        h.send(.start)
        let old = h.goLive()
        h.send(.closed(old, reason: "dropped"))
        h.run(for: .seconds(1))
        let new = h.goLive()
        #expect(h.send(.closed(old, reason: "late close")).isEmpty)
        #expect(h.send(.rejected(old, reason: "late error")).isEmpty)
        #expect(h.machine.primaryLink == new)
        #expect(h.machine.isLive)
    }

    @Test func exchangesWithoutAcksGoLiveOnTheFirstMarketData() {
        var h = H(H.configuration(acks: [], liveOnFirstData: true))
        h.send(.start)
        let id = h.lastConnect
        h.send(.connected(id))
        #expect(!h.machine.isLive)
        h.send(.heartbeat(id))
        #expect(!h.machine.isLive)
        #expect(h.send(.data(id)) == [.live])
    }

    @Test func noDataAtAllAfterSubscribingWithoutAcksTimesOut() {
        var h = H(H.configuration(acks: [], liveOnFirstData: true))
        h.send(.start)
        h.send(.connected(h.lastConnect))
        h.run(for: .seconds(10))
        #expect(h.downs == ["no market data within 10s of connecting; reconnecting in 1s"])
    }

    @Test func aConnectionIsRenewedBeforeItsLifetimeWithoutAGap() throws {
        var h = H(H.configuration(lifetime: .seconds(24 * 3600)))
        h.send(.start)
        let first = h.goLive()
        while h.machine.successorLink == nil, h.seconds < 86_400 {
            h.run(for: .seconds(20))
            h.send(.data(first))
        }
        // Renewal 15 min before the 24 h mark, spread by up to a quarter of that (random 0.5: 112.5 s).
        let opened = h.times { $0 == .connect(StreamLinkID(2)) }
        #expect(opened == [86_400 - 900 - 112.5])
        let second = try #require(h.machine.successorLink)
        #expect(h.closes(first).isEmpty)
        h.send(.connected(second))
        h.send(.data(first))
        let promoted = h.send(.acked(second, keys: ["id:1"], complete: false))
        #expect(promoted == [.close(first, reason: "replaced by a fresh connection")])
        #expect(h.machine.primaryLink == second)
        #expect(h.downs.isEmpty)
        #expect(h.lives == 1)
        // The old connection's own close afterwards changes nothing.
        #expect(h.send(.closed(first, reason: "closed by the server")).isEmpty)
        #expect(h.machine.isLive)
    }

    @Test func aShutdownNoticeStartsTheReplacementAtOnce() {
        var h = H(H.configuration(lifetime: .seconds(24 * 3600)))
        h.send(.start)
        let first = h.goLive()
        h.run(for: .seconds(5))
        #expect(h.send(.shutdownNotice(first)) == [.connect(StreamLinkID(2))])
        // The old one closes before the replacement is live: a gap, reported; the replacement takes over.
        h.send(.closed(first, reason: "closed by the server"))
        #expect(h.downs == ["closed by the server; waiting for the replacement connection"])
        #expect(h.connects.count == 2)
        let second = h.goLive()
        #expect(second == StreamLinkID(2))
        #expect(h.lives == 2)
    }

    @Test func aFailedReplacementIsRetriedWhileTheOldConnectionServes() {
        var h = H(H.configuration(lifetime: .seconds(3600)))
        h.send(.start)
        let first = h.goLive()
        h.send(.shutdownNotice(first))
        let second = h.lastConnect
        h.send(.connectFailed(second, reason: "refused"))
        #expect(h.downs.isEmpty)
        #expect(h.machine.isLive)
        #expect(h.machine.primaryLink == first)
        h.run(for: .seconds(1))
        #expect(h.machine.successorLink == nil)  // renewal is due only near the lifetime
        while h.seconds < 2600 {
            h.run(for: .seconds(20))
            h.send(.data(first))
        }
        #expect(h.times { $0 == .connect(StreamLinkID(3)) } == [3600 - 900 - 112.5])
        #expect(h.downs.isEmpty)
    }

    @Test func aNewSubscriptionPlanAppliesToTheNextConnection() {
        var h = H(H.configuration(messages: 1, acks: ["ticker:A", "ticker:B"]))
        h.send(.start)
        let first = h.lastConnect
        h.send(.connected(first))
        h.machine.updateSubscription(messages: 1, acks: ["ticker:A"])
        h.send(.rejected(first, reason: "B does not exist"))
        h.run(for: .seconds(1))
        let second = h.lastConnect
        #expect(second != first)
        h.send(.connected(second))
        #expect(h.send(.acked(second, keys: ["ticker:A"], complete: false)) == [.live])
    }
}
