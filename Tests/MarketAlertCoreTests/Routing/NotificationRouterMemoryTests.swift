import Foundation
import MarketAlertCore
import Testing

/// What the router holds survives its JSON state record, and a restore keeps only what today's settings
/// still call for.
@Suite struct NotificationRouterMemoryTests {
    private let t0 = Date(timeIntervalSince1970: 1_794_990_400)  // 2026-11-18T08:26:40Z (Wednesday)

    private func event(_ key: String, kind: AlertKind, status: String = "firing") -> AlertEvent {
        AlertEvent(
            id: "id-\(key)-\(status)", key: key, kind: kind, status: status, severity: .warning, at: t0, summary: key,
            source: kind == .source ? SourceDetail(name: "dunamu", error: "down", lastSuccess: nil, consecutiveFailures: 3) : nil)
    }

    private var settings: RoutingSettings {
        let window = TimeWindow(name: "all-day", entries: [TimeWindowEntry(times: [ClockRange(start: 0, end: 24 * 60)])])
        return RoutingSettings(
            routes: [
                Route(match: NotificationMatch(key: "listing/*"), sinks: ["phone"], muteTimeIntervals: ["all-day"], sendAfterMute: true),
                Route(match: NotificationMatch(), sinks: ["ops"]),
            ],
            timeIntervals: ["all-day": window],
            inhibit: [InhibitRule(source: NotificationMatch(kind: .source), target: NotificationMatch(kind: .fx))])
    }

    /// A router holding one of each: an inhibitor (the source), the FX alert it holds back, a muted listing.
    private func heldRouter() -> NotificationRouter {
        var router = NotificationRouter(settings: settings)
        _ = router.route(event("source/dunamu", kind: .source), at: t0)
        _ = router.route(event("fx/USD-KRW", kind: .fx), at: t0)
        _ = router.route(event("listing/upbit/NEW", kind: .listing), at: t0)
        return router
    }

    @Test func aRouterHoldingEachKindRoundTripsThroughItsRecord() throws {
        let memory = heldRouter().memory
        #expect(memory.inhibitors.map(\.key) == ["source/dunamu"])
        #expect(memory.heldByInhibition.map(\.key) == ["fx/USD-KRW"])
        #expect(memory.heldByMute.map(\.event.key) == ["listing/upbit/NEW"])
        #expect(memory.heldByMute.map(\.route) == [0])

        let record = try NotificationRouter.record(memory)
        #expect(record.kind == NotificationRouter.memoryKind)
        #expect(record.key == NotificationRouter.memoryKey)
        var restored = NotificationRouter(settings: settings)
        restored.restore(try NotificationRouter.memory(from: record.data))
        #expect(restored.memory == memory)
        // It behaves as the original: the inhibitor's resolution releases the held FX alert.
        let outcome = restored.route(event("source/dunamu", kind: .source, status: "resolved"), at: t0)
        #expect(outcome.released.map(\.event.key) == ["fx/USD-KRW"])
    }

    @Test func aRestoreDropsWhatTheNewSettingsNoLongerCallFor() throws {
        let memory = heldRouter().memory

        var plain = RoutingSettings(routes: [Route(match: NotificationMatch(), sinks: ["ops"])])
        plain.timeIntervals = settings.timeIntervals
        var restored = NotificationRouter(settings: plain)
        restored.restore(memory)
        #expect(restored.memory.isEmpty, "no inhibit rule and no send_after_mute route: nothing is held")
        #expect(restored.nextWake(after: t0) == nil)
    }

    @Test func anUnreadableRecordIsAnErrorNotACrash() {
        #expect(throws: (any Error).self) { try NotificationRouter.memory(from: Data("{\"inhibitors\":[{\"key\":1}]}".utf8)) }
        #expect(throws: (any Error).self) { try NotificationRouter.memory(from: Data("not json".utf8)) }
    }
}
