import Foundation
import GRDB
import MarketAlertCore
import MarketAlertIO
import Testing

/// The store's WAL is copied back by its own connection, not by the commit that crosses SQLite's threshold.
@Suite struct WALCheckpointerTests {
    private func publication(_ n: Int) throws -> Publication {
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.2 + Double(n) / 1000, now: Date(timeIntervalSince1970: 1_700_000_000), policy: LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04))
        // A state row of ~8 KB: each commit adds a few pages to the log.
        var record = StateRecord.encode(machine, key: "premium/global/A\(n % 40)", kind: "premium")
        record.data.append(Data(repeating: UInt8(n % 251), count: 8_000))
        return Publication(states: [record])
    }

    private func walBytes(_ directory: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: directory + "/state.sqlite-wal"))?[.size] as? Int) ?? 0
    }

    @Test func theWriterLeavesCheckpointsToItsOwnConnection() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wal-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(directory: directory)
        let threshold = try await store.writer.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(threshold == WALCheckpointer.writerFallbackPages)
        let checkpointer = try #require(store.checkpointer)

        // Notifications come apart: a checkpoint finishes between two rounds of commits, and the next commit
        // then starts the log over from its beginning.
        let commits = WALCheckpointer.commitsPerCheckpoint * 6
        for n in 0..<commits {
            try await store.commit(try publication(n), at: Date(timeIntervalSince1970: 1_700_000_000))
            if (n + 1) % WALCheckpointer.commitsPerCheckpoint == 0 { try await checkpointer.settle() }
        }
        #expect(checkpointer.completed == 6)
        // Each commit writes ≥ 3 pages (the row overflows into pages of its own): 384 commits are over 1,100
        // pages, past SQLite's own threshold of 1,000 but under the writer's raised one. Checkpointed every 64
        // commits, the log stays near 64 commits long.
        let pagesWithoutCheckpoints = commits * 3
        #expect(walBytes(directory) < pagesWithoutCheckpoints * 4096 / 3, "the WAL grew as if nothing checkpointed it: \(walBytes(directory)) bytes")
        // Everything committed is there, read back by a fresh connection.
        let reopened = try SQLiteStore(directory: directory)
        let rows = try await reopened.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM alert_state") }
        #expect(rows == 40)
    }

    @Test func aCommitCountsOnlyOnceItHasCommitted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wal-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(directory: directory)
        let checkpointer = try #require(store.checkpointer)
        for n in 0..<(WALCheckpointer.commitsPerCheckpoint - 1) {
            try await store.commit(try publication(n), at: Date(timeIntervalSince1970: 1_700_000_000))
        }
        // A write that throws rolls back and is not a commit.
        await #expect(throws: (any Error).self) {
            try await store.write { db in try db.execute(sql: "INSERT INTO no_such_table VALUES (1)") }
        }
        try await checkpointer.settle()
        #expect(checkpointer.completed == 0)
        try await store.commit(try publication(99), at: Date(timeIntervalSince1970: 1_700_000_000))
        try await checkpointer.settle()
        #expect(checkpointer.completed == 1)
    }
}
