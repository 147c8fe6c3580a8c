import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// Drops `server`'s connection and moves virtual time to the stream's reconnect and no further, then waits
/// (real time) until the stream is live on a second connection.
///
/// Virtual time is moved to the backoff timer the driver armed after the drop (a stream timer that was not
/// asleep before it), not forward in steps until a connection shows up: on a loaded machine a real connect
/// takes long enough for stepped time to pass its 10 s connect timeout too, and the connection the server
/// counted was then abandoned for another backoff that nobody moved time for.
func reconnectOnVirtualTime(_ server: WebSocketTestServer, _ clock: ManualClock, _ log: UpdateLog, lives: Int = 2) async throws {
    @Sendable func isStreamTimer(_ sleeper: ManualClock.Sleeping) -> Bool { sleeper.label.name.hasPrefix("stream ") }
    let armed = Set(clock.sleeping.filter(isStreamTimer).map(\.deadline))
    server.closeAbruptly()
    try await pollUntil("down") { log.all.contains { if case .down = $0 { true } else { false } } }
    try await clock.waitUntil("the reconnect timer") { sleeping in
        sleeping.contains { isStreamTimer($0) && !armed.contains($0.deadline) }
    }
    if let due = clock.sleeping.filter({ isStreamTimer($0) && !armed.contains($0.deadline) }).map(\.deadline).min() {
        await clock.advance(to: due)
    }
    try await pollUntil("live again") { log.all.filter { $0 == .live }.count == lives }
}
