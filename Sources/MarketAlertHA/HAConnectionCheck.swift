import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// `marketalertd check-config --connect`: reaches the HA database and reports what an operator needs before
/// starting a pair: the schema version (migrations are applied by the daemon, not here) and who holds the
/// lease. Never prints the password.
package enum HAConnectionCheck {
    package struct Report: Sendable {
        package var lines: [String]
        package var ok: Bool
    }

    package static func run(_ settings: Settings, secrets: SecretResolver, timeout: Duration = .seconds(10)) async -> Report {
        guard let ha = settings.ha else {
            return Report(lines: ["--connect: no ha: section; nothing to connect to (the state is in SQLite in state_dir)"], ok: true)
        }
        let url: PostgresURL
        do { url = try HADatabaseURL.resolve(ha, secrets: secrets) } catch { return Report(lines: ["\(error)"], ok: false) }
        let logger = Logger(label: "check-config", factory: { _ in SwiftLogNoOpLogHandler() })
        let store: PostgresStore
        do { store = try PostgresStore(url: url, instance: ha.instance ?? HARole.defaultInstanceName(), logger: logger) } catch {
            return Report(lines: ["ha: cannot set up a PostgreSQL client for \(url.redacted): \(error)"], ok: false)
        }
        let version: Int
        let lease: PostgresStore.LeaseRow?
        do {
            (version, lease) = try await store.withRunning { store in
                try await SystemClock().withDeadline(timeout) { () throws -> (Int, PostgresStore.LeaseRow?) in
                    let version = try await store.schemaVersion()
                    return (version, version > 0 ? try await store.currentLease() : nil)
                }
            }
        } catch {
            return Report(lines: ["ha: cannot reach the database \(url.redacted): \(error)"], ok: false)
        }
        var lines = ["database \(url.redacted): reachable"]
        let latest = PostgresStore.latestSchemaVersion
        switch version {
        case 0: lines.append("schema: empty (the first instance to start creates it, version \(latest))")
        case latest: lines.append("schema: version \(version) (current)")
        case ..<latest: lines.append("schema: version \(version) (this version migrates it to \(latest) at start)")
        default: lines.append("schema: version \(version), newer than this build knows (\(latest)): upgrade this instance")
        }
        if let lease {
            let state = lease.remaining > 0 ? "valid for \(String(format: "%.1f", lease.remaining)) s" : "expired"
            lines.append("lease: held by \(lease.holder), epoch \(lease.epoch), \(state)")
        } else {
            lines.append("lease: nobody has led yet")
        }
        return Report(lines: lines, ok: version <= latest)
    }
}
