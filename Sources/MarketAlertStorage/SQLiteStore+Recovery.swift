import Foundation
import GRDB
import MarketAlertKit

/// Opening the state database when it is damaged: the daemon must keep working and nothing may be silently
/// forgotten, so a corrupt or empty (0-byte) `state.sqlite` is kept aside under a timestamped name, a fresh one
/// is started, and the caller raises a loud error and a `source/state` alert.
extension SQLiteStore {
    /// What was kept aside, for the log and the alert.
    package struct Recovery: Sendable, Equatable {
        /// Where the damaged file now is.
        package var keptAt: String
        /// Why it was not usable.
        package var reason: String
    }

    /// Opens `directory/state.sqlite`; a damaged file is moved aside and a fresh store opened instead.
    /// Throws only when even a fresh store cannot be opened (an unwritable directory).
    package static func openRecovering(directory: String, now: Date = Date()) throws -> (store: SQLiteStore, recovery: Recovery?) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = URL(fileURLWithPath: directory).appendingPathComponent("state.sqlite").path
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.intValue
        var reason: String?
        if size == 0 {
            reason = "the file is empty (0 bytes): its state was lost before this start"
        } else {
            do {
                let store = try SQLiteStore(directory: directory)
                // A file can open and migrate yet be damaged further in: ask SQLite.
                let check = try store.writer.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
                if check == "ok" { return (store, nil) }
                reason = "integrity check failed: \(check ?? "no answer")"
            } catch {
                reason = "\(error)"
            }
        }
        let keptAt = path + ".corrupt-" + Self.stamp(now)
        try FileManager.default.moveItem(atPath: path, toPath: keptAt)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.moveItem(atPath: path + suffix, toPath: keptAt + suffix)
        }
        let store = try SQLiteStore(directory: directory)
        return (store, Recovery(keptAt: keptAt, reason: reason ?? "unreadable"))
    }

    /// `20260310T020000Z`.
    private static func stamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
