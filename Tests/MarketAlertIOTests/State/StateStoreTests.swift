import Foundation
import GRDB
import MarketAlertCore
import MarketAlertIO
import Testing

@Suite struct StateStoreTests {
    func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)").path
    }

    @Test func statesSurviveReopeningTheFileInWALMode() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.2, now: at, policy: LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04))
        do {
            let store = try SQLiteStore(directory: directory)
            try await store.commit(Publication(states: [
                StateRecord.encode(machine, key: "premium/global/BTC", kind: "premium"),
                StateRecord.encode(machine, key: "premium/global/ETH", kind: "premium"),
            ]), at: at)
            try await store.commit(Publication(deletedKeys: ["premium/global/ETH"]), at: at)
        }
        let reopened = try SQLiteStore(directory: directory)
        let loaded = try await reopened.loadStates(kind: "premium", as: LeveledAlertStateMachine.self)
        #expect(loaded.states == ["premium/global/BTC": machine])
        let mode = try await reopened.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        #expect(FileManager.default.fileExists(atPath: directory + "/state.sqlite"))
    }

    @Test func undecodableRowsAreReportedNotFatal() async throws {
        let store = try SQLiteStore(inMemory: ())
        try await store.writer.write { db in
            try db.execute(sql: "INSERT INTO alert_state (key, kind, state, updated_at) VALUES ('premium/x/BTC', 'premium', X'7B7D', 0)")
        }
        let loaded = try await store.loadStates(kind: "premium", as: LeveledAlertStateMachine.self)
        #expect(loaded.states.isEmpty)
        #expect(loaded.undecodable == ["premium/x/BTC"])
    }

    @Test func anUnwritableDirectoryIsAnErrorNotACrash() {
        #expect(throws: (any Error).self) { try SQLiteStore(directory: "/proc/marketalertd-state") }
    }
}
