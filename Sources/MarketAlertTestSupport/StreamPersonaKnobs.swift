import Foundation
import MarketAlertIO
import Synchronization

/// How a test WebSocket server answers subscriptions, changeable while it runs (the personas themselves are
/// the exchanges' wire kits): each request must have the exchange's documented shape (a wrong one gets the
/// exchange's in-band error, so a client bug shows up as a test failure), then it is acked, refused, or
/// acked only in part, as the knobs say; text pings get the exchange's pong.
package final class StreamPersonaKnobs: Sendable {
    package typealias Mode = PersonaKnobs.Mode

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

    /// The knobs as they are now, for a wire kit's persona.
    package var snapshot: PersonaKnobs {
        state.withLock { PersonaKnobs(mode: $0.mode, answerPings: $0.answerPings, refused: $0.refused) }
    }
}
