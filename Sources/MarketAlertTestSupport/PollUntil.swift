/// Waits until `condition` holds, checking every 5 ms of real time, and throws `WebSocketTestServer.WaitTimeout`
/// naming `what` after `timeout`.
///
/// For waiting on real I/O only (frames crossing a real socket, a server seeing a subscription): the timing
/// logic under test (keepalive, staleness, backoff) runs on a `ManualClock`, and nothing here stands in for it.
package func pollUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while !condition() {
        guard clock.now < deadline else { throw WebSocketTestServer.WaitTimeout(what: what) }
        try await Task.sleep(for: .milliseconds(5))
    }
}
