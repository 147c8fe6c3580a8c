import MarketAlertCore
import MarketAlertDelivery
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// The one way into the alert engine. Producers hold a copy and `send` (or `post` stream quotes); only
/// `EngineLoop` reads.
package struct EngineInbox: Sendable {
    package enum Input: Sendable {
        case event(EngineEvent)
        /// Stream quotes of this exchange wait in the mailbox (posted once per non-empty mailbox).
        case mailbox(ExchangeID)
        /// A deadline the loop scheduled may have fallen due.
        case wake
        /// HA: this instance leads from here on with `epoch`; the engine adopts the stored states first.
        case takeover(AlertEngine.Restored, epoch: Int64)
        /// Stream quotes were decided outside the loop: perform what they decided, re-arm the timer.
        case decided
    }

    /// The loop's queue (specialized for `Input`: see `AsyncQueue`).
    package let stream = AsyncQueue<Input>()
    private let counter = SentCounter()
    package let mailbox = QuoteMailbox()
    /// The running loop's engine: stream quotes are decided there at once (nil: the loop is not running,
    /// they wait in the mailbox).
    private let core = EngineSlot()

    package init() {}

    /// The loop runs: from now on stream quotes are decided on arrival.
    package func connect(_ engine: EngineCore) { core.value.withLock { $0 = engine } }

    package func send(_ event: EngineEvent) {
        enqueue(.event(event))
    }

    /// Stream quotes, coalesced: the latest quote per market wins until the loop takes the batch, so a market
    /// sending hundreds of messages a second cannot back up the engine (its queue holds one entry per
    /// exchange, its mailbox one quote per market).
    ///
    /// While the loop runs, they are decided at once on the caller's thread (`EngineCore.decideQuotes`), and
    /// the loop hears of them only when they decided something to perform or moved its timer.
    package func post(_ quotes: [Quote], from exchange: ExchangeID) {
        if let engine = core.value.withLock({ $0 }) {
            if !engine.decideQuotes(quotes, from: exchange).isEmpty { enqueue(.decided) }
            return
        }
        guard mailbox.put(quotes, from: exchange) else { return }
        enqueue(.mailbox(exchange))
    }

    /// Inputs accepted so far (with `EngineLoop.handled`, tells tests when the engine has caught up).
    package var sent: Int { counter.value.load(ordering: .relaxed) }

    /// HA: queued behind every input before it, so what the engine decided as a standby is never published.
    package func takeover(_ restored: AlertEngine.Restored, epoch: Int64) {
        enqueue(.takeover(restored, epoch: epoch))
    }

    package func wake() {
        enqueue(.wake)
    }

    /// Counted before it is queued: the loop may take it (and a test read `sent`) before `yield` returns.
    private func enqueue(_ input: Input) {
        counter.value.add(1, ordering: .relaxed)
        if !stream.yield(input) { counter.value.subtract(1, ordering: .relaxed) }
    }

    /// No more events: the loop handles what is queued, then returns (stream quotes are no longer decided).
    package func finish() {
        core.value.withLock { $0 = nil }
        stream.finish()
    }
}

private final class SentCounter: Sendable {
    let value = Atomic<Int>(0)
}

private final class EngineSlot: Sendable {
    let value = Mutex<EngineCore?>(nil)
}
