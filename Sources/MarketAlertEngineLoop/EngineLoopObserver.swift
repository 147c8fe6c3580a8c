import Foundation
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage

/// Watches the engine loop from outside, without slowing it: liveness for `/healthz` and counts for
/// `/metrics`. Called on the loop's own executor, so an implementation must return at once (atomics, a
/// short lock); it never sees the engine itself.
package protocol EngineLoopObserver: Sendable {
    /// The loop began reading its inbox.
    func loopStarted(at now: Date)
    /// The loop took an input: an event, or nil for a deadline wake.
    func inputBegan(_ event: EngineEvent?, at now: Date)
    /// The loop finished that input (its actions performed: published, status set, logged).
    func inputEnded(at now: Date)
    /// The loop returned (shutdown) and will take no more input.
    func loopStopped()
    /// Stream quotes were decided outside the loop's inputs (`EngineCore.decideQuotes`), on the thread that
    /// read them: `count` since the last call, the last at `now`. Told by the loop at its next input (at
    /// least once a second while quotes arrive); not an input of the loop (a loop stuck on a sink stays
    /// stuck).
    func quotesDecided(_ exchange: ExchangeID, count: Int, at now: Date)
}

extension EngineLoopObserver {
    package func quotesDecided(_ exchange: ExchangeID, count: Int, at now: Date) {}
}

/// Several observers as one (liveness and metrics).
package struct EngineLoopObservers: EngineLoopObserver {
    private let observers: [any EngineLoopObserver]

    package init(_ observers: [any EngineLoopObserver]) { self.observers = observers }

    package func loopStarted(at now: Date) { for observer in observers { observer.loopStarted(at: now) } }
    package func inputBegan(_ event: EngineEvent?, at now: Date) { for observer in observers { observer.inputBegan(event, at: now) } }
    package func inputEnded(at now: Date) { for observer in observers { observer.inputEnded(at: now) } }
    package func loopStopped() { for observer in observers { observer.loopStopped() } }
    package func quotesDecided(_ exchange: ExchangeID, count: Int, at now: Date) {
        for observer in observers { observer.quotesDecided(exchange, count: count, at: now) }
    }
}
