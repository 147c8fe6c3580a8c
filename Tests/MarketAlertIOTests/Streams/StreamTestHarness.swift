import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// One stream source running against a real `WebSocketTestServer` on 127.0.0.1, with virtual time
/// (`ManualClock`) for every timer of the source. The test waits (real time, polling) for what crosses the
/// socket, and moves virtual time itself.
final class StreamTestHarness: Sendable {
    let server: WebSocketTestServer
    let clock: ManualClock
    let counters: StreamCounters
    let knobs: StreamPersonaKnobs
    /// The stream goes live on its first data frame (`StreamCase.liveOnFirstData`).
    let liveOnFirstData: Bool
    private let updates = UpdateLog()
    private let task = Mutex<Task<Void, Never>?>(nil)

    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    init(
        _ streamCase: StreamCase, mode: StreamPersonaKnobs.Mode = .ack, staleAfter: Duration = .seconds(30), refusing: Set<String> = []
    ) async throws {
        knobs = StreamPersonaKnobs(mode)
        liveOnFirstData = streamCase.liveOnFirstData
        knobs.refuse(refusing)
        server = try await WebSocketTestServer(persona: streamCase.persona(knobs))
        clock = ManualClock(now: Self.start)
        counters = StreamCounters()
        let source = streamCase.makeSource(server.url(streamCase.path), clock, counters, staleAfter)
        let pairs = streamCase.pairs
        let updates = self.updates
        task.withLock {
            $0 = Task {
                await source.run(pairs: pairs) { update in updates.append(update) }
            }
        }
    }

    var all: [StreamUpdate] { updates.all }

    var quotes: [Quote] {
        all.flatMap { update -> [Quote] in if case .quotes(let quotes) = update { return quotes } else { return [] } }
    }

    var downs: [String] {
        all.compactMap { if case .down(let reason) = $0 { return reason } else { return nil } }
    }

    var lives: Int { all.filter { $0 == .live }.count }

    /// The latest quote of `market` so far.
    func latest(_ market: String) -> Quote? { quotes.last { $0.market == market } }

    /// Waits (real time) until `condition` holds over the updates so far.
    func waitFor(_ what: String, timeout: Duration = .seconds(10), _ condition: @Sendable (StreamTestHarness) -> Bool) async throws {
        do {
            try await pollUntil(what, timeout: timeout) { condition(self) }
        } catch let timeout as WebSocketTestServer.WaitTimeout {
            Issue.record("timed out waiting for \(what); updates: \(all.map(Self.describe)); counters: \(counters.snapshot)")
            throw timeout
        }
    }

    /// Gives the source a moment (real time) to act on what it has; for checks that something did NOT happen.
    func settle() async throws { try await Task.sleep(for: .milliseconds(150)) }

    /// Waits for the `count`th `.live`; for a stream that goes live on its first data (no ack: Upbit, Bithumb),
    /// also for the quotes of that frame. The driver emits `.live` on its own task and the intake the read's
    /// quotes on the socket's thread, in either order, so a test that took a baseline after `.live` alone
    /// could see that frame's quotes arrive after it.
    func waitLive(count: Int = 1) async throws {
        try await waitFor("live #\(count)") { $0.lives >= count }
        guard liveOnFirstData else { return }
        try await waitFor("the quotes of the frame that made live #\(count)") { h in
            let updates = h.all
            guard let live = updates.indices.filter({ updates[$0] == .live }).dropFirst(count - 1).first else { return false }
            // This connection's frames come after the last `.down` before its `.live`.
            let connected = updates[..<live].lastIndex { if case .down = $0 { true } else { false } }.map { $0 + 1 } ?? 0
            return updates[connected...].contains { if case .quotes = $0 { true } else { false } }
        }
    }

    func waitDown(count: Int = 1) async throws {
        try await waitFor("down #\(count)") { $0.downs.count >= count }
    }

    /// Advances virtual time in steps of at most `step`, letting the source run between steps.
    func advance(by duration: Duration, step: Duration = .seconds(1)) async throws {
        var remaining = duration
        while remaining > .zero {
            let now = min(step, remaining)
            await clock.advance(by: now)
            remaining -= now
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
        await server.shutdown()
    }

    static func describe(_ update: StreamUpdate) -> String {
        switch update {
        case .live: "live"
        case .down(let reason): "down(\(reason))"
        case .quotes(let quotes): "quotes(\(quotes.map(\.market).joined(separator: ",")))"
        case .restOnly(let pairs): "restOnly(\(pairs.map(\.description).sorted().joined(separator: ",")))"
        }
    }
}

/// Runs `body` with a started harness and always stops it.
func withStream(
    _ streamCase: StreamCase, mode: StreamPersonaKnobs.Mode = .ack, staleAfter: Duration = .seconds(30),
    refusing: Set<String> = [], _ body: (StreamTestHarness) async throws -> Void
) async throws {
    let harness = try await StreamTestHarness(streamCase, mode: mode, staleAfter: staleAfter, refusing: refusing)
    do {
        try await body(harness)
    } catch {
        await harness.stop()
        throw error
    }
    await harness.stop()
}

/// What a stream emitted, in order.
final class UpdateLog: Sendable {
    private let state = Mutex<[StreamUpdate]>([])

    func append(_ update: StreamUpdate) { state.withLock { $0.append(update) } }

    var all: [StreamUpdate] { state.withLock { $0 } }
}
