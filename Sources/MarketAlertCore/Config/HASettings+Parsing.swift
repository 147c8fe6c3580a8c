import Foundation

/// v2 `ha:`: several instances share one PostgreSQL database; one leads (persists and delivers), the others
/// stand by warm. Absent: a single instance on SQLite in `state_dir`, exactly as before.
package struct HASettings: Sendable, Equatable {
    /// Name of the secret holding the PostgreSQL URL (environment or `$CREDENTIALS_DIRECTORY`).
    package var postgresURLEnv = "MARKETALERTD_DATABASE_URL"
    /// How long a lease lasts unrenewed: a standby takes over within this long after the leader stops renewing.
    package var lease: Duration = .seconds(10)
    /// This instance's name in the lease, status and metrics; nil means hostname and pid (resolved by the adapter).
    package var instance: String?

    /// Shorter leases leave no room for a renewal round trip and the leader's safety margin.
    package static let minimumLease: Duration = .seconds(1)

    package init(postgresURLEnv: String = "MARKETALERTD_DATABASE_URL", lease: Duration = .seconds(10), instance: String? = nil) {
        self.postgresURLEnv = postgresURLEnv
        self.lease = lease
        self.instance = instance
    }

    /// Reads `ha:` (`postgres_url_env`, `lease`, `instance`); every problem names its key.
    static func read(_ table: ConfigTable) -> HASettings {
        var settings = HASettings()
        if let name = table.string("postgres_url_env") {
            if name.isEmpty || name.contains("/") || name.contains("=") {
                table.error("postgres_url_env", "expected the name of an environment variable or credential, got \"\(name)\"")
            } else {
                settings.postgresURLEnv = name
            }
        }
        if let lease = table.duration("lease") {
            if lease < minimumLease {
                table.error("lease", "must be at least 1s (a renewal needs a round trip to the database), got \(DurationText.format(lease))")
            } else {
                settings.lease = lease
            }
        }
        if let instance = table.string("instance") {
            let trimmed = instance.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.count > 200 {
                table.error("instance", "expected a non-empty name of at most 200 characters")
            } else {
                settings.instance = trimmed
            }
        }
        return settings
    }
}
