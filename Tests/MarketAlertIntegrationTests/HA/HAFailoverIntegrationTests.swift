import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two daemons on one PostgreSQL: exactly one speaks. A leader killed, paused past its lease, or cut off
/// from the database loses nothing and doubles nothing: every transition reaches stdout and the webhook
/// once (by event id), pending deliveries resume with their ids, and a paused leader sends nothing after.
@Suite(
    .serialized,
    .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"),
    .enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct HAFailoverIntegrationTests {
    @Test func aKill9OfTheLeaderWithADeliveryPendingIsTakenOverWithinTheLease() async throws {
        let pair = try await HAPair()
        let (a, b) = try await pair.startBoth()
        defer { a.terminate(); b.terminate() }

        let apiA = try await DaemonAPI.connect(to: a)
        let apiB = try await DaemonAPI.connect(to: b)
        defer { Task { await apiA.shutdown(); await apiB.shutdown() } }
        #expect(try await apiA.get("/api/v1/status").json["role"] as? String == "leader")
        try await b.waitUntil("b ready as a standby") {
            let ready = try await apiB.get("/readyz")
            return ready.status == 200 && ready.json["role"] as? String == "standby"
        }
        #expect(try await apiB.get("/api/v1/status").json["role"] as? String == "standby")
        // Silences are changed on the leader; a standby says so.
        let silence = #"{"matchers":{"key":"fx/*"},"duration":"1h","comment":"maintenance","created_by":"it"}"#
        let refused = try await apiB.request(.POST, "/api/v1/silences", json: silence)
        #expect(refused.status == 503 && refused.text.contains("standby"), "\(refused.status) \(refused.text)")
        #expect(try await apiA.metrics().value("marketalertd_ha_leader", ["instance": "a"]) == 1)
        #expect(try await apiB.metrics().value("marketalertd_ha_leader", ["instance": "b"]) == 0)

        // The receiver is down: a's notice stays pending in the shared outbox.
        pair.receiver.answer(.status(503))
        pair.apis.set("bybit", "BTC", "100060.00")  // 0.06% ≥ 0.05: notice
        let notice = try await a.waitForEvent("a's notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        try await a.waitUntil("a refused webhook attempt") { pair.receiver.deliveries.contains { $0.webhookID == notice.id } }
        #expect(b.events.isEmpty, "a standby notifies nothing")

        a.signal(SIGKILL)
        let killedAt = ContinuousClock.now
        _ = await a.waitForExit(timeout: .seconds(5))
        // During the gap the premium moves on: a warning nobody has notified yet.
        pair.apis.set("bybit", "BTC", "100120.00")  // 0.12% ≥ 0.1: warning
        pair.receiver.answer(.status(200))
        try await b.waitForLine("b to take over", stderr: true, timeout: .seconds(10)) { $0.contains("this instance leads now") }
        let takeover = ContinuousClock.now - killedAt
        print("HA takeover after kill -9: \(takeover) (lease \(HAPair.lease) s)")
        #expect(takeover <= .seconds(HAPair.lease + 1.5), "takeover took \(takeover)")

        let warning = try await b.waitForEvent("b's warning for the gap") { $0.key == "premium/global/BTC" && $0.severity == .warning }
        try await b.waitUntil("both delivered to the webhook") { Set(pair.receiver.acceptedIDs) == [notice.id, warning.id] }
        #expect(pair.receiver.acceptedIDs == [notice.id, warning.id], "the pending one first, with its original id")
        #expect(!b.events.contains { $0.severity == .notice }, "what a delivered is not notified again")
        #expect(try await apiB.get("/api/v1/status").json["role"] as? String == "leader")
        #expect(try await apiB.metrics().value("marketalertd_ha_leader", ["instance": "b"]) == 1)
        try await Task.sleep(for: .seconds(1))
        let ids = (a.events + b.events).map(\.id)
        #expect(ids.count == Set(ids).count && pair.receiver.acceptedIDs.count == Set(pair.receiver.acceptedIDs).count)
        b.terminate()
        await pair.cleanUp()
    }

    @Test func aLeaderPausedPastItsLeaseSendsNothingAfterItResumes() async throws {
        let pair = try await HAPair()
        let (a, b) = try await pair.startBoth()
        defer { a.signal(SIGCONT); a.terminate(); b.terminate() }

        pair.apis.set("bybit", "BTC", "100060.00")
        let notice = try await a.waitForEvent("a's notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        try await a.waitUntil("the notice delivered") { pair.receiver.acceptedIDs == [notice.id] }
        // Paused between the receipt and the removal of its outbox row, a would leave the notice for b to send
        // again (at least once, same id): pause it once the removal is recorded.
        try await Self.waitUntilNothingPending(a)

        a.signal(SIGSTOP)
        try await b.waitForLine("b to take over", stderr: true, timeout: .seconds(10)) { $0.contains("this instance leads now") }
        pair.apis.set("bybit", "BTC", "100120.00")
        let warning = try await b.waitForEvent("b's warning") { $0.key == "premium/global/BTC" && $0.severity == .warning }
        try await b.waitUntil("the warning delivered") { pair.receiver.acceptedIDs == [notice.id, warning.id] }
        // The price falls back while a is paused: b resolves it.
        pair.apis.set("bybit", "BTC", "100010.00")
        let resolved = try await b.waitForEvent("b's resolve") { $0.key == "premium/global/BTC" && $0.status == "resolved" }
        try await b.waitUntil("the resolve delivered") { pair.receiver.acceptedIDs.count == 3 }
        let printedByA = a.events.count
        let deliveries = pair.receiver.deliveries.count

        a.signal(SIGCONT)
        try await a.waitForLine("a to step down", stderr: true, timeout: .seconds(10)) { $0.contains("stepping down to standby") }
        try await Task.sleep(for: .seconds(3))
        #expect(a.events.count == printedByA, "a printed after resuming: \(a.events.suffix(2))")
        #expect(pair.receiver.deliveries.count == deliveries, "a request reached the receiver after a resumed")
        #expect(pair.receiver.acceptedIDs == [notice.id, warning.id, resolved.id])
        let ids = (a.events + b.events).map(\.id)
        #expect(ids.count == Set(ids).count)
        a.terminate()
        b.terminate()
        await pair.cleanUp()
    }

    @Test func postgresStoppedForTenSecondsHoldsTheNotificationUntilItIsBack() async throws {
        let pair = try await HAPair()
        let (a, b) = try await pair.startBoth()
        defer { a.terminate(); b.terminate() }

        pair.apis.set("bybit", "BTC", "100060.00")
        let notice = try await a.waitForEvent("a's notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        try await a.waitUntil("the notice delivered") { pair.receiver.acceptedIDs == [notice.id] }
        // Delivery is at least once: a receipt whose outbox row the database has not yet removed is sent again
        // when the database is back (same id). Stop it only once the outbox says nothing is pending.
        try await Self.waitUntilNothingPending(a)

        try await pair.postgres.stop()
        let stoppedAt = ContinuousClock.now
        try await a.waitForLine("a to step down", stderr: true, timeout: .seconds(10)) { $0.contains("stepping down to standby") }
        pair.apis.set("bybit", "BTC", "100120.00")  // warning, decided while nobody can write
        try await Task.sleep(until: stoppedAt + .seconds(10))
        #expect(a.isRunning && b.isRunning, "no instance crashes")
        #expect(!(a.events + b.events).contains { $0.severity == .warning }, "nobody delivers without a valid lease")
        #expect(pair.receiver.acceptedIDs == [notice.id])

        try await pair.postgres.start()
        try await a.waitUntil("the held warning delivered once the database is back", timeout: .seconds(20)) {
            pair.receiver.acceptedIDs.count == 2
        }
        try await Task.sleep(for: .seconds(2))
        let warnings = (a.events + b.events).filter { $0.severity == .warning }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(pair.receiver.acceptedIDs == [notice.id] + warnings.map(\.id))
        let ids = (a.events + b.events).map(\.id)
        #expect(ids.count == Set(ids).count)
        #expect(a.isRunning && b.isRunning)
        a.terminate()
        b.terminate()
        await pair.cleanUp()
    }

    /// Until `daemon`'s webhook outbox holds nothing: every delivery's receipt is recorded in the database.
    static func waitUntilNothingPending(_ daemon: DaemonProcess) async throws {
        let api = try await DaemonAPI.connect(to: daemon)
        try await daemon.waitUntil("the delivery recorded: nothing pending in the outbox") {
            let pending = try await api.metrics().samples.filter { $0.name == "marketalertd_webhook_pending" }
            return !pending.isEmpty && pending.allSatisfy { $0.value == 0 }
        }
        await api.shutdown()
    }
}
