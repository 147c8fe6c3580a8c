import Foundation

/// What the silence machine reads of the engine's alert machines (premium, FX, source health, IPO floods):
/// which keys fire now and, per key, what a silence matches it on and a fresh notification at its current
/// level. The router (`AlertEngine`) answers from its machines; a test answers from a table.
protocol FiringAlerts {
    /// Every key firing now, sorted.
    func firingKeys() -> [String]

    /// What a silence matches a firing key on, from its state machine: the severity it fires with.
    func firingSubject(_ key: String) -> SilenceMatcher.Subject

    /// A fresh notification of a key that is still firing, at its current level, rebuilt from its machine's
    /// current value (nil: no machine can rebuild it; the silence machine's record serves).
    func currentFiringEvent(_ key: String, now: Date) -> AlertEvent?

    /// Since when a premium or FX key fires and when it last notified, from its state machine (nil: unknown).
    func firingPhase(_ key: String) -> (since: Date, lastNotified: Date?)?

    /// Whether a recorded key's state machine no longer fires, without a resolution to say so (a premium rule
    /// or FX alert removed by a reload): its firing record is dropped.
    func hasStoppedFiring(_ key: String) -> Bool
}
