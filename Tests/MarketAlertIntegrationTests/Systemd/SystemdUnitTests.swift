import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// `systemd/marketalertd.service` with the real daemon under a real systemd 252 (booted in private namespaces
/// by `scripts/systemd-sandbox`), against a mock API server inside the sandbox's own network namespace.
/// Skipped, with the reason, when the machine cannot run the sandbox (not root, no unshare or systemd) or the
/// debug binary has not been built.
@Suite(
    "marketalertd.service under systemd",
    .serialized,
    .enabled(if: SystemdUnitTestGate.skipReason == nil, Comment(rawValue: SystemdUnitTestGate.skipReason ?? "")))
struct SystemdUnitTests {
    static let unit = "marketalertd.service"
    static let binary = SystemdUnitTestGate.binary
    static let mockPort = 18080

    @Test("installs, becomes ready, reports status and watchdog, journals alerts, reloads, stops cleanly, exposure <= 2.0")
    func lifecycle() async throws {
        let work = try SandboxWorkDirectory()
        defer { work.remove() }
        let sandbox = try await SystemdSandbox.start()
        do {
            try await exercise(sandbox, work)
        } catch {
            print(await sandbox.diagnostics(unit: Self.unit))
            await sandbox.stop()
            throw error
        }
        await sandbox.stop()
    }

    private func exercise(_ sandbox: SystemdSandbox, _ work: SandboxWorkDirectory) async throws {
        let unit = Self.unit
        let repo = Fixtures.repositoryRoot.path

        // A mock of Binance and Bybit inside the sandbox network; Bybit is 1% dearer, so a premium fires.
        try work.writeTickers(binance: "100000.00", bybit: "101000.00")
        try await sandbox.check(
            "systemd-run", "--unit=marketalertd-mock-api", "--collect", "-p", "Type=exec",
            "/usr/bin/python3", "\(repo)/scripts/mock-api-server.py", "--root", work.api.path, "--port", "\(Self.mockPort)")
        try await eventually("mock API listening") {
            try await sandbox.run(
                "/usr/bin/python3", "-c", "import socket; socket.create_connection(('127.0.0.1', \(Self.mockPort)), 1)"
            ).succeeded ? true : nil
        }

        // A drop-in shortens the watchdog so the test sees several pings (every WATCHDOG_USEC / 2 = 2 s) quickly.
        try await sandbox.check(
            "sh", "-c", "mkdir -p /etc/systemd/system/\(unit).d && printf '[Service]\\nWatchdogSec=4s\\n' > /etc/systemd/system/\(unit).d/10-test-watchdog.conf")

        // Install as an operator would (no credential files exist: they are optional) and start.
        try work.writeConfig(ruleName: "sandbox", to: work.config)
        try await sandbox.check(
            "\(repo)/scripts/install", "--binary", Self.binary, "--config", work.config.path, "--now", timeoutSeconds: 120)
        #expect(try await sandbox.run("systemctl", "is-active", unit).trimmed == "active")

        // STATUS= reaches systemd and shows in `systemctl status`.
        let statusText = try await eventually("a status line with the premium") {
            let text = try await sandbox.property("StatusText", of: unit)
            return text.contains("max premium BTC 1.000%") ? text : nil
        }
        #expect(statusText.hasPrefix("ready: 2 exchanges ok"))
        let status = try await sandbox.run("systemctl", "status", "--no-pager", "--lines=0", unit)
        #expect(status.stdout.contains("Status: \"\(statusText)\""), "\(status.stdout)")

        // The alert as a native journal entry with its structured fields.
        let alert = try await eventually("a premium alert in the journal") {
            try await sandbox.journal("-u", unit, "MARKETALERT_KIND=premium").first
        }
        #expect(alert["MESSAGE_ID"] == "542effa5e0004aba93927cd2fcdedcd7")
        #expect(alert["SYSLOG_IDENTIFIER"] == "marketalertd")
        #expect(alert["_TRANSPORT"] == "journal")
        #expect(alert["PRIORITY"] == "4")
        #expect(alert["MARKETALERT_KEY"] == "premium/sandbox/BTC")
        #expect(alert["MARKETALERT_RULE"] == "sandbox")
        #expect(alert["MARKETALERT_STATUS"] == "firing")
        #expect(alert["MARKETALERT_SEVERITY"] == "warning")
        #expect(alert["MARKETALERT_HIGH_EXCHANGE"] == "bybit")
        #expect(alert["MARKETALERT_LOW_EXCHANGE"] == "binance")
        #expect(alert["MARKETALERT_PREMIUM_PCT"] == "1")
        let json = try #require(alert["MARKETALERT_EVENT_JSON"])
        let event = try AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data(json.utf8))
        #expect(event.kind == .premium && event.id == alert["MARKETALERT_EVENT_ID"])
        #expect(event.premium?.high.exchange == "bybit")

        // Stdout goes to the journal too; with the journal sink on, the alert is not written a second time
        // there as a plain stdout line.
        let plainAlerts = try await sandbox.journal("-u", unit, "_TRANSPORT=stdout").filter {
            $0["MESSAGE"]?.contains("premium/sandbox/BTC") == true
        }
        #expect(plainAlerts.isEmpty, "alerts duplicated as stdout lines: \(plainAlerts)")

        // Logs are native entries too ($JOURNAL_STREAM matched stderr), with code location and label.
        let running = try await eventually("the daemon's 'running' log entry") {
            try await sandbox.journal("-u", unit, "MESSAGE=marketalertd running").first
        }
        #expect(running["_TRANSPORT"] == "journal")
        #expect(running["CODE_FILE"]?.hasSuffix("DataPathService.swift") == true)
        #expect(running["MARKETALERTD_LOGGER"] == "marketalertd")
        #expect(running["PRIORITY"] == "6")

        // WATCHDOG=1 keeps arriving.
        #expect(try await sandbox.property("WatchdogUSec", of: unit) == "4s")
        let firstPing = try await sandbox.property("WatchdogTimestampMonotonic", of: unit)
        try await eventually("a later watchdog ping", timeoutSeconds: 10) {
            let ping = try await sandbox.property("WatchdogTimestampMonotonic", of: unit)
            return (UInt64(ping) ?? 0) > (UInt64(firstPing) ?? .max) ? true : nil
        }

        // Reload applies a changed config without a restart: the renamed rule alerts under its new name.
        let mainPID = try await sandbox.property("MainPID", of: unit)
        try work.writeConfig(ruleName: "sandbox-reloaded", to: work.reloadedConfig)
        try await sandbox.check("cp", work.reloadedConfig.path, "/etc/marketalertd/marketalertd.yaml")
        try await sandbox.check("systemctl", "reload", unit)
        #expect(try await sandbox.run("systemctl", "is-active", unit).trimmed == "active")
        #expect(try await sandbox.property("MainPID", of: unit) == mainPID)
        #expect(try await sandbox.property("NRestarts", of: unit) == "0")
        let reloaded = try await eventually("an alert from the reloaded rule") {
            try await sandbox.journal("-u", unit, "MARKETALERT_RULE=sandbox-reloaded").first
        }
        #expect(reloaded["MARKETALERT_KEY"] == "premium/sandbox-reloaded/BTC")

        // Stop: the main process exits 0 and the unit's result is success. systemd logs the exit status at
        // debug level only (and forgets it once the stopped unit is unloaded), so raise its level meanwhile.
        let invocation = try await sandbox.property("InvocationID", of: unit)
        try await sandbox.check("systemd-analyze", "log-level", "debug")
        try await sandbox.check("systemctl", "stop", unit)
        try await sandbox.check("systemd-analyze", "log-level", "info")
        #expect(try await sandbox.run("systemctl", "is-active", unit).trimmed == "inactive")
        let exit = try #require(
            try await sandbox.journal("MESSAGE_ID=98e322203f7a4ed290d09fe03c09fe15", "INVOCATION_ID=\(invocation)").last)
        #expect(exit["EXIT_CODE"] == "exited" && exit["EXIT_STATUS"] == "0", "\(exit.fields)")
        let success = try await sandbox.journal("MESSAGE_ID=7ad2d189f7e94e70a38c781354912448", "INVOCATION_ID=\(invocation)")
        #expect(success.count == 1, "expected systemd's 'Deactivated successfully' (Result=success)")

        // The unit's exposure as systemd itself rates the loaded unit.
        let security = try await sandbox.run("systemd-analyze", "security", "--no-pager", unit)
        let score = try #require(Self.exposure(in: security.stdout + security.stderr), "\(security)")
        #expect(score <= 2.0, "exposure \(score)")
        print("marketalertd.service exposure in the sandbox: \(score)")
    }

    /// `→ Overall exposure level for marketalertd.service: 1.2 OK :-)` → 1.2.
    static func exposure(in output: String) -> Double? {
        guard let match = output.firstMatch(of: /exposure level for [^:]+: ([0-9]+\.[0-9]+)/) else { return nil }
        return Double(match.1)
    }
}

/// Whether the systemd integration test can run here; the reason is printed when it cannot.
enum SystemdUnitTestGate {
    static let binary = Fixtures.repositoryRoot.appendingPathComponent(".build/debug/marketalertd").path

    static let skipReason: String? = {
        let reason: String?
        if let sandbox = SystemdSandbox.unavailableReason {
            reason = "no systemd sandbox here: \(sandbox)"
        } else if !FileManager.default.isExecutableFile(atPath: binary) {
            reason = "\(binary) is not built (run swift build first)"
        } else {
            reason = nil
        }
        if let reason { print("SystemdUnitTests skipped: \(reason)") }
        return reason
    }()
}

/// Polls `probe` every 250 ms until it returns a value; throws after `timeoutSeconds`. Only for waiting on
/// the real systemd and daemon, never to test timing.
@discardableResult
func eventually<T>(_ what: String, timeoutSeconds: Double = 30, _ probe: () async throws -> T?) async throws -> T {
    let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
    while true {
        if let value = try await probe() { return value }
        guard ContinuousClock.now < deadline else { throw TimedOut(what: what, seconds: timeoutSeconds) }
        try await Task.sleep(for: .milliseconds(250))
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var seconds: Double
    var description: String { "timed out after \(seconds) s waiting for \(what)" }
}
