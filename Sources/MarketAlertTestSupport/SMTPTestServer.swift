import Foundation

/// A real SMTP server on 127.0.0.1 for the email tests: Python's aiosmtpd running
/// `scripts/lib/smtp-test-server.py`, on a port the system picks, in a directory of its own. It can refuse
/// DATA as scripted (`replies`: `[451, 250]` refuses the first message and accepts the next), hold the first
/// answers (`slowFirst`), speak STARTTLS or implicit TLS with a self-signed certificate made here for
/// 127.0.0.1 (`caFile` trusts it), and require AUTH. Each event the server sees is a JSON line the test reads.
package final class SMTPTestServer: Sendable {
    package enum TLSMode: Sendable { case none, startTLS, implicit }

    /// One line of the server's `events.jsonl`.
    package struct Event: Decodable, Sendable {
        package var event: String
        package var n: Int
        package var code: Int?
        package var tls: Bool?
        package var auth: String?
        package var mailFrom: String?
        package var rcptTos: [String]?
        package var dataB64: String?

        enum CodingKeys: String, CodingKey {
            case event, n, code, tls, auth, mailFrom = "mail_from", rcptTos = "rcpt_tos", dataB64 = "data_b64"
        }

        /// The accepted message's bytes as the server received them (dot-stuffing undone).
        package var message: String? { dataB64.flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } }
    }

    package let port: Int
    package let directory: URL
    /// The self-signed certificate (PEM) when TLS is on.
    package let caFile: String?
    private let process: Process

    private init(port: Int, directory: URL, caFile: String?, process: Process) {
        self.port = port
        self.directory = directory
        self.caFile = caFile
        self.process = process
    }

    package static var script: URL { Fixtures.repositoryRoot.appendingPathComponent("scripts/lib/smtp-test-server.py") }

    package static func start(
        replies: [Int] = [250], slowFirst: Int = 0, slowSeconds: Double = 0, tls: TLSMode = .none, auth: (user: String, password: String)? = nil,
        authOnly: String? = nil, refuseRecipients: [String] = []
    ) async throws -> SMTPTestServer {
        let check = try await CommandRunner.run(["python3", "-c", "import aiosmtpd"], timeoutSeconds: 30)
        guard check.succeeded else { throw SetupFailed(what: "Python's aiosmtpd is not installed (scripts/test installs it: pip install aiosmtpd)") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [script.path, "--dir", directory.path, "--replies", replies.map(String.init).joined(separator: ",")]
        if slowFirst > 0 { arguments += ["--slow-first", String(slowFirst), "--slow-seconds", String(slowSeconds)] }
        var caFile: String?
        if tls != .none {
            let cert = directory.appendingPathComponent("cert.pem").path
            let key = directory.appendingPathComponent("key.pem").path
            let made = try await CommandRunner.run([
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ], timeoutSeconds: 60)
            guard made.succeeded else { throw SetupFailed(what: "openssl could not make a test certificate: \(made)") }
            arguments += ["--cert", cert, "--key", key, tls == .startTLS ? "--starttls" : "--implicit-tls"]
            caFile = cert
        }
        if let auth { arguments += ["--auth", "\(auth.user):\(auth.password)"] }
        if let authOnly { arguments += ["--auth-only", authOnly] }
        for recipient in refuseRecipients { arguments += ["--refuse-rcpt", recipient] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.standardInput = FileHandle.nullDevice
        let log = directory.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try? handle.close()
        let portFile = directory.appendingPathComponent("port")
        try await pollUntil("the SMTP test server's port file", timeout: .seconds(20)) {
            FileManager.default.fileExists(atPath: portFile.path) || !process.isRunning
        }
        guard let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) else {
            process.terminate()
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw SetupFailed(what: "the SMTP test server did not start: \(output)")
        }
        return SMTPTestServer(port: port, directory: directory, caFile: caFile, process: process)
    }

    /// Refuses every message with `code` from now on (nil: answer as scripted again).
    package func refuse(with code: Int?) throws {
        let switchFile = directory.appendingPathComponent("refuse")
        if let code {
            try String(code).write(to: switchFile, atomically: true, encoding: .utf8)
        } else {
            try? FileManager.default.removeItem(at: switchFile)
        }
    }

    /// Every event so far, in order.
    package func events() -> [Event] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("events.jsonl"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Event.self, from: Data($0.utf8)) }
    }

    package var accepted: [Event] { events().filter { $0.event == "accepted" } }

    /// Waits (real I/O) until an event satisfies `condition`.
    package func waitFor(_ what: String, timeout: Duration = .seconds(20), _ condition: @escaping (Event) -> Bool) async throws {
        try await pollUntil("SMTP test server: \(what)", timeout: timeout) { self.events().contains(where: condition) }
    }

    /// Stops the server (SIGKILL) and removes its directory.
    package func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    package struct SetupFailed: Error, CustomStringConvertible {
        package var what: String
        package var description: String { what }
    }
}
