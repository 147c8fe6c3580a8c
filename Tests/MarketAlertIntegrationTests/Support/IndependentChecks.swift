import Foundation

/// Checks done by code that is not ours (Python's `hmac` and `sqlite3`), so a test does not grade the
/// daemon with the daemon's own implementation.
enum IndependentChecks {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Verifies a Standard Webhooks `webhook-signature` header: `v1,` + base64(HMAC-SHA256(key,
    /// "{id}.{timestamp}.{body}")). A `whsec_` secret is base64-decoded to the key, any other secret is used
    /// as its UTF-8 bytes. Returns true when one of the header's `v1,` signatures matches.
    static func webhookSignatureIsValid(secret: String, id: String, timestamp: String, header: String, body: Data) async throws -> Bool {
        let script = """
            import sys, hmac, hashlib, base64
            secret, msg_id, ts, header, body_path = sys.argv[1:6]
            if secret.startswith("whsec_"):
                encoded = secret[len("whsec_"):]
                key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
            else:
                key = secret.encode()
            body = open(body_path, "rb").read()
            mac = hmac.new(key, msg_id.encode() + b"." + ts.encode() + b"." + body, hashlib.sha256).digest()
            expected = base64.b64encode(mac).decode()
            given = [p.split(",", 1)[1] for p in header.split(" ") if p.startswith("v1,")]
            print("valid" if any(hmac.compare_digest(expected, g) for g in given) else "invalid")
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-body-\(UUID().uuidString)")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CommandRunner.run(["python3", "-c", script, secret, id, timestamp, header, file.path], timeoutSeconds: 30)
        switch result.trimmed {
        case "valid": return true
        case "invalid": return false
        default: throw Failed(description: "the signature check did not run: \(result)")
        }
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
