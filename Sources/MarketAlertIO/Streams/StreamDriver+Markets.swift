import Foundation
import Logging
import MarketAlertCore
import NIOCore

/// The driver's markets beyond the connection: those the exchange refused (held out, REST covers them, asked
/// for again with backoff; issue #26 items 1–2) and those quiet on a live stream (REST polls them until their
/// data returns; item 12), and what REST is told to poll beside the stream.
extension StreamDriver {
    /// The exchange refused `named` on link `id`: they are held out of the subscriptions (asked for again
    /// later) and REST covers them; the connection and every other market stay. Returns what the machine
    /// must hear: the acks that will not come and what to ask for again on the connection, or `.pause` when
    /// nothing is left to stream. A refusal that names no watched market is an error of the connection.
    mutating func refuse(_ named: [String], on id: StreamLinkID, reason: String, emit: Emit) -> StreamConnectionEvent {
        let refused = Set(named).filter { indexOf[$0] != nil }
        guard !refused.isEmpty else { return .rejected(id, reason: reason) }
        let now = source.clock.now()
        let exchange = source.exchange.rawValue
        let held = retry.held
        let newly = refused.subtracting(held).sorted()
        var retryAt: Date?
        for market in newly { retryAt = retry.refuse(market, now: now) }
        if !newly.isEmpty {
            source.logger?.warning("stream: the exchange refused markets; REST keeps them and the stream asks again later", metadata: [
                "source": "\(exchange)", "markets": "\(newly.joined(separator: ","))", "reason": "\(reason)",
                "retry_in": "\(retryAt.map { Self.wait(until: $0, from: now) } ?? "-")"])
        }
        // Told before anything else, so the poller covers them by the time the stream is live again.
        publishRestOnly(emit: emit)
        let nowHeld = retry.held
        let remaining = markets.filter { !nowHeld.contains($0) }
        guard !remaining.isEmpty else {
            paused = true
            let wait = retry.nextDeadline.map { Self.wait(until: $0, from: now) } ?? "a while"
            goDown("exchange error: \(reason); every watched market was refused, the stream asks again in \(wait) (REST keeps them)", emit: emit)
            return .pause
        }
        subscription = source.protocolDescription.subscription(for: remaining)
        machine.updateSubscription(messages: subscription.messages.count, acks: subscription.acks)
        // What the refusal cancels on this connection, and what it must ask for again.
        let description = source.protocolDescription
        guard subscription.refusesWholeMessage, var handle = links[id] else {
            return .resubscribe(id, drop: description.subscription(for: refused.sorted()).acks, messages: [], acks: [])
        }
        var drop: Set<String> = []
        var again: Set<String> = []
        for market in refused.sorted() {
            let part = handle.partOf[market] ?? [market]
            drop.formUnion(description.subscription(for: part).acks)
            again.formUnion(part)
            for other in part { handle.partOf[other] = nil }
        }
        again.subtract(nowHeld)
        guard !again.isEmpty else {
            links[id] = handle
            return .resubscribe(id, drop: drop, messages: [], acks: [])
        }
        let resend = description.subscription(for: markets.filter(again.contains))
        handle.record(resend.parts)
        links[id] = handle
        return .resubscribe(id, drop: drop, messages: resend.messages, acks: resend.acks)
    }

    /// How long from `now` until `deadline`, in words (`1m`, `2h`), for the refusal's log lines.
    private static func wait(until deadline: Date, from now: Date) -> String {
        StreamDurationText.describe(.seconds(max(0, deadline.timeIntervalSince(now).rounded())))
    }

    /// Markets whose wait after a refusal is over are asked for again: on the connection serving now, else
    /// by the next one (reopened at once when the stream had paused).
    mutating func retryDue(now: Date) -> [StreamConnectionEvent] {
        let due = retry.takeDue(now: now)
        guard !due.isEmpty else { return [] }
        source.logger?.info("stream: asking again for markets the exchange refused", metadata: [
            "source": "\(source.exchange.rawValue)", "markets": "\(due.joined(separator: ","))"])
        let held = retry.held
        subscription = source.protocolDescription.subscription(for: markets.filter { !held.contains($0) })
        machine.updateSubscription(messages: subscription.messages.count, acks: subscription.acks)
        if paused {
            paused = false
            return [.start]
        }
        guard let primary = machine.primaryLink, var handle = links[primary], handle.connected else { return [] }
        let again = source.protocolDescription.subscription(for: due)
        handle.record(again.parts)
        links[primary] = handle
        return [.resubscribe(primary, drop: [], messages: again.messages, acks: [])]
    }

    /// Per-market freshness on the live stream (markets asked for again count as streaming once their data
    /// arrives). Returns when the next market would become stale.
    mutating func checkFreshness(now: Date) -> Date? {
        let retrying = retry.retrying
        guard freshness.liveSince != nil || !retrying.isEmpty else { return nil }
        let lastData = intake.receivedTimes()
        for (market, since) in retrying {
            if let index = indexOf[market], lastData[index] >= since { retry.streamed(market) }
        }
        guard freshness.liveSince != nil else { return nil }
        let held = retry.held
        let watched = markets.map { !held.contains($0) }
        let (stale, recovered) = freshness.check(now: now, lastData: lastData, watched: watched)
        let exchange = source.exchange
        for _ in stale { FetchMetrics.rejectedQuotes(exchange, reason: "stale") }
        if !stale.isEmpty {
            // One line per check, not one per market: a whole-market rule can find hundreds quiet at once.
            source.logger?.warning("stream: markets are quiet on the live stream; REST polls them until their data returns", metadata: [
                "source": "\(exchange.rawValue)", "markets": "\(stale.map { markets[$0] }.joined(separator: ","))",
                "count": "\(stale.count)", "stale_after": "\(StreamDurationText.describe(source.staleAfter))"])
        }
        if !recovered.isEmpty {
            source.logger?.info("stream: quiet markets send again; REST leaves them", metadata: [
                "source": "\(exchange.rawValue)", "markets": "\(recovered.map { markets[$0] }.joined(separator: ","))"])
        }
        return freshness.nextDeadline(lastData: lastData, watched: watched)
    }

    /// Tells REST which markets the live stream does not carry (refused, asked for again, or quiet), when that changed.
    mutating func publishRestOnly(emit: Emit) {
        var current = retry.notStreaming
        for index in freshness.stale.keys { current.insert(markets[index]) }
        guard current != restOnly else { return }
        restOnly = current
        emit(.restOnly(intake.pairs(of: current)))
    }
}
