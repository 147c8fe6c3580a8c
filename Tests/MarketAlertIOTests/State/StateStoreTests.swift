import Foundation
import GRDB
import MarketAlertCore
import MarketAlertIO
import Testing

@Suite struct StateStoreTests {
    func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)").path
    }

    @Test func statesSurviveReopeningTheFileInWALMode() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.2, now: at, policy: LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04))
        do {
            let store = try StateStore(directory: directory)
            try store.saveState(machine, key: "premium/global/BTC", kind: "premium", at: at)
            try store.saveState(machine, key: "premium/global/ETH", kind: "premium", at: at)
            try store.deleteState(key: "premium/global/ETH")
        }
        let reopened = try StateStore(directory: directory)
        let loaded = try reopened.loadStates(kind: "premium", as: LeveledAlertStateMachine.self)
        #expect(loaded.states == ["premium/global/BTC": machine])
        let mode = try reopened.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        #expect(FileManager.default.fileExists(atPath: directory + "/state.sqlite"))
    }

    @Test func undecodableRowsAreReportedNotFatal() throws {
        let store = try StateStore(inMemory: ())
        try store.writer.write { db in
            try db.execute(sql: "INSERT INTO alert_state (key, kind, state, updated_at) VALUES ('premium/x/BTC', 'premium', X'7B7D', 0)")
        }
        let loaded = try store.loadStates(kind: "premium", as: LeveledAlertStateMachine.self)
        #expect(loaded.states.isEmpty)
        #expect(loaded.undecodable == ["premium/x/BTC"])
    }

    @Test func anUnwritableDirectoryIsAnErrorNotACrash() {
        #expect(throws: (any Error).self) { try StateStore(directory: "/proc/marketalertd-state") }
    }
}
