import Foundation
import MarketAlertCore
import MarketAlertKit

/// Where silences live: the `silence` table of the SQLite store (a fake in tests, PostgreSQL under HA).
/// Ended silences are kept `Silence.retention` (a week) for the record, then purged.
package protocol SilenceStore: Sendable {
    /// Every silence not yet purged (ended less than a week before `now`), oldest first; purges the rest.
    func silences(now: Date) async throws -> [Silence]
    func insertSilence(_ silence: Silence) async throws
    /// Ends the silence at `now` (one that had not started yet never starts); false when the id is unknown.
    func expireSilence(id: String, at now: Date) async throws -> Bool
    /// Records that the engine handled these silences' ends.
    func markSilenceEndsHandled(_ ids: [String], at now: Date) async throws
}
