import Foundation

/// Verifies a Standard Webhooks `webhook-signature` header with Python's `hmac` module, an implementation
/// independent of ours: `v1,` + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")). A `whsec_` secret is
/// base64-decoded to the key, any other secret is used as its UTF-8 bytes.
package enum WebhookSignatureCheck {
    package struct DidNotRun: Error, CustomStringConvertible {
        package var description: String
    }

    /// True when one of the header's `v1,` signatures matches; throws when the check itself did not run.
    package static func isValid(secret: String, id: String, timestamp: String, header: String, body: Data) async throws -> Bool {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-body-\(UUID().uuidString)")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CommandRunner.run(["python3", "-c", script, secret, id, timestamp, header, file.path], timeoutSeconds: 30)
        switch result.trimmed {
        case "valid": return true
        case "invalid": return false
        default: throw DidNotRun(description: "the signature check did not run: \(result)")
        }
    }

    private static let script = """
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
}
