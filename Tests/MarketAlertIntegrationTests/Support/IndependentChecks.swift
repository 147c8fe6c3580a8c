import Foundation
import MarketAlertTestSupport

/// Checks done by code that is not ours (Python's `sqlite3`), so a test does not grade the daemon with the
/// daemon's own implementation. The webhook signature check is `WebhookSignatureCheck` (MarketAlertTestSupport).
enum IndependentChecks {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// The event ids queued for `webhook` in the daemon's outbox (`state.sqlite`), oldest first, read through
    /// a read-only SQLite connection while the daemon runs.
    static func queuedWebhookEventIDs(stateDirectory: String, webhook: String) async throws -> [String] {
        let database = URL(fileURLWithPath: stateDirectory).appendingPathComponent("state.sqlite").path
        let script = """
            import sys, sqlite3, urllib.parse
            uri = "file:" + urllib.parse.quote(sys.argv[1]) + "?mode=ro"
            db = sqlite3.connect(uri, uri=True, timeout=5)
            for (event_id,) in db.execute("SELECT event_id FROM webhook_outbox WHERE webhook = ? ORDER BY seq", (sys.argv[2],)):
                print(event_id)
            print("--end--")
            """
        let result = try await CommandRunner.run(["python3", "-c", script, database, webhook], timeoutSeconds: 30)
        var lines = result.trimmed.split(separator: "\n").map(String.init)
        guard result.succeeded, lines.last == "--end--" else { throw Failed(description: "reading the outbox failed: \(result)") }
        lines.removeLast()
        return lines
    }
}
