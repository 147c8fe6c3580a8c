import Foundation
import GRDB
import Synchronization

/// Copies the SQLite store's write-ahead log back into the database file on a connection and a queue of its
/// own, so no commit waits for it.
///
/// SQLite checkpoints by itself at the end of whichever commit finds the log past 1,000 pages. That commit
/// then syncs the log, copies its pages and syncs the database file before it returns: in the depth daemon,
/// about one notification in a hundred waited 0.7 ms more for it (two `fdatasync`s). Here the writer's own
/// threshold is raised to `writerFallbackPages` (a bound should this checkpointer stall) and, after every
/// `commitsPerCheckpoint` commits, a passive checkpoint runs on this connection while the writer goes on
/// committing (a passive checkpoint takes no lock a writer needs; with `synchronous = NORMAL` a commit itself
/// does not sync). A checkpoint that runs while commits keep coming cannot finish (the log's tail moves), and
/// the log only starts over after one that did: during a long burst of commits it grows until the writer's
/// fallback (16 MB of pages) checkpoints inline, as SQLite would have at 1,000.
package final class WALCheckpointer: Sendable {
    package static let commitsPerCheckpoint = 64
    package static let writerFallbackPages = 4_000

    private let connection: DatabaseQueue
    private struct State {
        var commits = 0
        var running = false
        var completed = 0
    }
    private let state = Mutex(State())

    /// Opens the checkpointing connection to the (already created, WAL mode) database at `path`.
    package init(path: String) throws {
        var configuration = Configuration()
        configuration.label = "marketalertd.checkpoint"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// What each of the store's connections runs when it opens: the writer leaves checkpoints to this one.
    package static func prepare(_ db: Database) throws {
        try db.execute(sql: "PRAGMA wal_autocheckpoint = \(writerFallbackPages)")
    }

    /// Called after each commit of the store's writer; starts a checkpoint when one is due and none is running.
    package func committed() {
        let start = state.withLock { state -> Bool in
            state.commits += 1
            guard state.commits >= Self.commitsPerCheckpoint, !state.running else { return false }
            state.commits = 0
            state.running = true
            return true
        }
        guard start else { return }
        connection.asyncWriteWithoutTransaction { db in
            // A checkpoint that cannot finish (a reader holds old pages) copies what it can; the next one goes on.
            _ = try? db.checkpoint(.passive)
            self.state.withLock {
                $0.running = false
                $0.completed += 1
            }
        }
    }

    /// Checkpoints completed so far.
    package var completed: Int { state.withLock { $0.completed } }

    /// Returns once the checkpoint started before it (if any) has finished (the connection's queue is serial).
    package func settle() async throws {
        try await connection.writeWithoutTransaction { _ in }
    }
}
