import Foundation
import MarketAlertTestSupport

/// A systemd booted as PID 1 of private namespaces by `scripts/systemd-sandbox` (see that script for how the
/// host is protected). Every command runs inside it through `nsenter`.
struct SystemdSandbox: Sendable {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/systemd-sandbox").path

    /// Why no sandbox can run here (not root, no unshare, no systemd …), or nil when one can.
    static let unavailableReason: String? = {
        guard let result = CommandRunner.runBlocking([script, "check"]) else { return "cannot run \(script)" }
        return result.succeeded ? nil : result.trimmed
    }()

    /// Host PID of the sandbox's PID 1.
    let pid: String

    static func start() async throws -> SystemdSandbox {
        // The repository (binary, scripts, the work directory under .build) must be visible inside, even
        // for a checkout under /tmp, which the sandbox replaces with its own tmpfs.
        let result = try await CommandRunner.check(
            ["/usr/bin/env", "SANDBOX_SHARE=\(Fixtures.repositoryRoot.path)", script, "start"], timeoutSeconds: 150)
        guard let pid = result.trimmed.split(separator: "\n").last.map(String.init), Int(pid) != nil else {
            throw CommandFailed(command: [script, "start"], result: result)
        }
        return SystemdSandbox(pid: pid)
    }

    func run(_ command: String..., timeoutSeconds: Int = 90) async throws -> CommandResult {
        try await CommandRunner.run([Self.script, "exec", pid] + command, timeoutSeconds: timeoutSeconds)
    }

    @discardableResult
    func check(_ command: String..., timeoutSeconds: Int = 90) async throws -> CommandResult {
        try await CommandRunner.check([Self.script, "exec", pid] + command, timeoutSeconds: timeoutSeconds)
    }

    /// One unit property (`systemctl show -p NAME --value`).
    func property(_ name: String, of unit: String) async throws -> String {
        try await check("systemctl", "show", "-p", name, "--value", unit).trimmed
    }

    /// Journal entries matching `matches` (journalctl match syntax, e.g. `MARKETALERT_KIND=premium`).
    func journal(_ matches: String...) async throws -> [JournalEntry] {
        let result = try await CommandRunner.check(
            [Self.script, "exec", pid, "journalctl", "--no-pager", "-o", "json"] + matches)
        return try JournalEntry.parse(result.stdout)
    }

    /// Powers it off (SIGKILL after a timeout) and removes its cgroup and state. Never throws.
    func stop() async {
        _ = try? await CommandRunner.run([Self.script, "stop", pid], timeoutSeconds: 60)
    }

    /// What helps when a test fails: the unit's status and the end of the journal.
    func diagnostics(unit: String) async -> String {
        let status = (try? await run("systemctl", "status", "--no-pager", "--lines=0", unit))?.stdout ?? ""
        let journal = (try? await run("journalctl", "--no-pager", "-n", "60"))?.stdout ?? ""
        return "--- systemctl status \(unit) ---\n\(status)\n--- journal (last 60) ---\n\(journal)"
    }
}

/// One `journalctl -o json` entry; fields journald stored as binary or repeated are left out.
struct JournalEntry: Decodable, Sendable {
    var fields: [String: String]

    subscript(_ name: String) -> String? { fields[name] }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldName.self)
        var fields: [String: String] = [:]
        for key in container.allKeys {
            if let value = try? container.decode(String.self, forKey: key) { fields[key.stringValue] = value }
        }
        self.fields = fields
    }

    static func parse(_ output: String) throws -> [JournalEntry] {
        try output.split(separator: "\n").map { line in
            try JSONDecoder().decode(JournalEntry.self, from: Data(line.utf8))
        }
    }

    struct FieldName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
