import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The slot in progress through a real store: what a graceful stop writes (`PremiumHistory.persistOpen`), the
/// next start's warm-up restores as the open slot, and the slot's flush merges into the same row: min and max
/// span both runs, the last is the second run's, and no notification is counted twice. SQLite and PostgreSQL.
enum HistoryStopRestartContract {
    static let t0 = HistoryStoreContract.t0  // a minute boundary

    static var settings: Settings {
        var settings = Settings()
        settings.premium.rules = [
            PremiumRule(
                name: "kimchi", assets: ["BTC"], exchanges: ["upbit", "binance"], quotes: ["KRW", "USDT"], levels: PremiumRule.defaultLevels,
                clearPct: 0.04)
        ]
        settings.history = HistorySettings(resolution: .seconds(60), retention: .seconds(86_400))
        return settings
    }

    static func slotSurvivesAStopAndARestart(_ store: some AlertStore & HistoryStore) async throws {
        let key = "premium/kimchi/BTC"
        // First run: 1% then 3%, two notifications; stopped at t0 + 12 within the slot.
        var first = PremiumHistory()
        first.configure(settings)
        first.bind(to: [key])
        first.observe(at: 0, pct: 1.0, now: t0 + 5)
        first.observe(at: 0, pct: 3.0, now: t0 + 10)
        first.noteNotification(key)
        first.noteNotification(key)
        var stop = Publication()
        stop.history = first.persistOpen()
        try await store.commit(stop, at: t0 + 12)

        // Second run from t0 + 30: the warm-up (as at start) restores the slot; 2% and one notification more.
        let now = t0 + 30
        let warm = try await store.fold(since: HistoryWarmup.since(settings: settings, now: now), into: HistoryWarmup(settings: settings, now: now)) {
            $0.add($1)
        }
        var second = warm.history
        let restored = try #require(second.openSamples().first)
        #expect(restored.minPct == 1.0 && restored.maxPct == 3.0)
        second.observe(key, pct: 2.0, now: t0 + 40)
        second.noteNotification(key)
        var flush = Publication()
        flush.history = second.flush(now: t0 + 60)
        #expect(flush.history.count == 1)
        try await store.commit(flush, at: t0 + 60)

        let rows = try await store.samples(rule: "kimchi", asset: "BTC", since: t0 - 60, until: t0 + 120)
        let row = try #require(rows.first)
        #expect(rows.count == 1)
        #expect(row.at == t0 && row.minPct == 1.0 && row.maxPct == 3.0 && row.lastPct == 2.0)
        #expect(row.notifications == 3)
    }
}

@Suite struct SQLiteHistoryStopRestartTests {
    @Test func theSlotInProgressSurvivesAStopAndARestart() async throws {
        try await HistoryStopRestartContract.slotSurvivesAStopAndARestart(try SQLiteStore(inMemory: ()))
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct PostgresHistoryStopRestartTests {
    @Test func theSlotInProgressSurvivesAStopAndARestart() async throws {
        let store = try await PostgresHistoryStoreTests.leader()
        try await HistoryStopRestartContract.slotSurvivesAStopAndARestart(store)
        await store.shutdown()
    }
}
