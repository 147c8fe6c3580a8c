import Foundation
import Synchronization

/// How a test WebSocket server answers subscriptions, exchange by exchange: it checks each request has the
/// exchange's documented shape (a wrong request gets the exchange's in-band error, so a client bug shows up
/// as a test failure), then acks, refuses, or acks only part, as the knobs say; text pings get the
/// exchange's pong.
package final class StreamPersonaKnobs: Sendable {
    package enum Mode: Sendable, Equatable {
        /// Ack every subscription.
        case ack
        /// Answer every subscription with the exchange's in-band error.
        case reject
        /// Ack only the first market of each request (a partial ack).
        case partial
        /// Never answer subscriptions.
        case silent
    }

    private let state: Mutex<(mode: Mode, answerPings: Bool, refused: Set<String>)>

    package init(_ mode: Mode = .ack) { state = Mutex((mode, true, [])) }

    /// Markets (exchange ids) the exchange says do not exist, with its own error; the rest is acked.
    package var refused: Set<String> { state.withLock { $0.refused } }

    package func refuse(_ markets: Set<String>) { state.withLock { $0.refused = markets } }

    package var mode: Mode { state.withLock { $0.mode } }

    package func set(_ mode: Mode) { state.withLock { $0.mode = mode } }

    /// Whether the exchange's text pings get their pong (true by default).
    package var answerPings: Bool { state.withLock { $0.answerPings } }

    package func setAnswerPings(_ answer: Bool) { state.withLock { $0.answerPings = answer } }
}
