import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// What HA costs a transition: the leader's fenced commit (lease row checked `FOR SHARE`, the state row and
/// the pending notification, one transaction) before the notification reaches any sink, and the fenced
/// clear after delivery, against a private PostgreSQL on 127.0.0.1. Only the commit delays a notification;
/// the budget is on it.
struct HAWriteBenchmark {
    struct Result {
        var commit: Samples
        var clear: Samples
    }

    static let budget = 5e-3

    let iterations: Int

    func run() async throws -> Result {
        let server = try await PostgresTestServer()
        try await server.start()
        do {
            let store = try PostgresStore(url: try PostgresURL(try await server.createDatabase()), instance: "bench", logger: Logger(label: "bench"))
            async let pool: Void = store.run()  // the connection pool, until `shutdown()` (or the scope ends on an error)
            _ = try await store.migrate()
            guard case .acquired(let epoch) = try await store.acquireLease(for: 60) else {
                throw DaemonRSSBenchmark.Failure(description: "the lease was not acquired")
            }
            store.setFence(epoch: epoch)
            var machine = LeveledAlertStateMachine()
            let now = Date()
            _ = machine.observe(0.2, now: now, policy: LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04))
            let state = StateRecord.encode(machine, key: "premium/global/BTC", kind: "premium")
            var commits: [Double] = []
            var clears: [Double] = []
            let clock = ContinuousClock()
            for index in 0..<(iterations + 20) {
                let event = AlertEvent(
                    id: "bench-\(index)", key: "premium/global/BTC", kind: .premium, status: AlertEvent.Status.firing, severity: .warning,
                    at: now, summary: "bench")
                let started = clock.now
                try await store.commit(Publication(states: [state], events: [event]), at: now)
                let committed = clock.now
                try await store.clearPending(eventIDs: [event.id])
                guard index >= 20 else { continue }  // warm-up
                commits.append(Self.seconds(committed - started))
                clears.append(Self.seconds(clock.now - committed))
            }
            await store.shutdown()
            await pool
            try await server.stop()
            await server.destroy()
            return Result(commit: Samples(commits), clear: Samples(clears))
        } catch {
            try? await server.stop(immediate: true)
            await server.destroy()
            throw error
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func report(_ r: Result) -> (String, Verdict) {
        func ms(_ s: Double) -> String { String(format: "%.2f ms", s * 1e3) }
        let rows = [
            ["HA write per transition", "n", "min", "median", "p90", "p99", "max"],
            ["fenced commit (before delivery)", "\(r.commit.count)", ms(r.commit.min), ms(r.commit.median), ms(r.commit.p90), ms(r.commit.percentile(99)), ms(r.commit.max)],
            ["fenced clear (after delivery)", "\(r.clear.count)", ms(r.clear.min), ms(r.clear.median), ms(r.clear.p90), ms(r.clear.percentile(99)), ms(r.clear.max)],
        ]
        let verdict = Verdict(
            pass: r.commit.count > 0 && r.commit.median <= budget,
            text: "HA: latency a transition's fenced commit adds before delivery: median \(ms(r.commit.median)), p90 \(ms(r.commit.p90)) (budget \(ms(budget)))")
        return (Report.table(rows), verdict)
    }
}
