import MarketAlertCore
import Synchronization

/// The one stream into the alert engine. Producers hold a copy and `send`; only `EngineLoop` reads.
package struct EngineInbox: Sendable {
    enum Input: Sendable {
        case event(EngineEvent)
        /// Stream quotes of this exchange wait in the mailbox (posted once per non-empty mailbox).
        case mailbox(ExchangeID)
        /// A deadline the loop scheduled may have fallen due.
        case wake
        /// HA: this instance leads from here on with `epoch`; the engine adopts the stored states first.
        case takeover(AlertEngine.Restored, epoch: Int64)
    }

    /// The loop's queue (specialized for `Input`: see `AsyncQueue`).
    let stream = AsyncQueue<Input>()
    private let counter = SentCounter()
    let mailbox = QuoteMailbox()

    package init() {}

    package func send(_ event: EngineEvent) {
        if stream.yield(.event(event)) { counter.value.add(1, ordering: .relaxed) }
    }

    /// Stream quotes, coalesced: the latest quote per market wins until the loop takes the batch, so a market
    /// sending hundreds of messages a second cannot back up the engine (its queue holds one entry per
    /// exchange, its mailbox one quote per market).
    package func post(_ quotes: [Quote], from exchange: ExchangeID) {
        guard mailbox.put(quotes, from: exchange) else { return }
        if stream.yield(.mailbox(exchange)) { counter.value.add(1, ordering: .relaxed) }
    }

    /// Inputs accepted so far (with `EngineLoop.handled`, tells tests when the engine has caught up).
    package var sent: Int { counter.value.load(ordering: .relaxed) }

    /// HA: queued behind every input before it, so what the engine decided as a standby is never published.
    package func takeover(_ restored: AlertEngine.Restored, epoch: Int64) {
        if stream.yield(.takeover(restored, epoch: epoch)) { counter.value.add(1, ordering: .relaxed) }
    }

    func wake() {
        if stream.yield(.wake) { counter.value.add(1, ordering: .relaxed) }
    }

    /// No more events: the loop handles what is queued, then returns.
    package func finish() { stream.finish() }
}

private final class SentCounter: Sendable {
    let value = Atomic<Int>(0)
}
