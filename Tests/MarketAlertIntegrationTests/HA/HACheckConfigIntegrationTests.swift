import Foundation
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// `marketalertd check-config --connect`: reaches the HA database, reports the schema version and the lease
/// holder, and fails with a clear message (never the password) when it cannot.
@Suite(
    .serialized,
    .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"),
    .enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct HACheckConfigIntegrationTests {
    @Test func connectReportsTheSchemaAndTheLeaseOrFailsClearly() async throws {
        let postgres = try await PostgresTestServer()
        try await postgres.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-cc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("c.yaml").path
        try "state_dir: \(directory.path)/state\nha: { lease: 2s, instance: checker }\n".write(toFile: config, atomically: true, encoding: .utf8)
        let url = try await postgres.createDatabase("alerts")
        func check(_ databaseURL: String?) async throws -> CommandResult {
            let env = databaseURL.map { ["env", "MARKETALERTD_DATABASE_URL=\($0)"] } ?? ["env", "-u", "MARKETALERTD_DATABASE_URL"]
            return try await CommandRunner.run(env + [DaemonProcess.binary.path, "check-config", "--connect", "--config", config], timeoutSeconds: 30)
        }

        let empty = try await check(url)
        #expect(empty.succeeded, "\(empty)")
        #expect(empty.stdout.contains("reachable") && empty.stdout.contains("schema: empty"), "\(empty)")

        // A daemon creates the schema and takes the lease; the check names the holder.
        let daemon = try DaemonProcess(arguments: ["run", "--config", config], environment: ["MARKETALERTD_DATABASE_URL": url])
        defer { daemon.terminate() }
        try await daemon.waitForLine("the daemon to lead", stderr: true) { $0.contains("this instance leads now") }
        let held = try await check(url)
        #expect(held.succeeded && held.stdout.contains("schema: version \(PostgresStore.latestSchemaVersion) (current)"), "\(held)")
        #expect(held.stdout.contains("lease: held by checker #") && held.stdout.contains("epoch 1"), "\(held)")

        let missing = try await check(nil)
        #expect(missing.status == 1 && missing.stderr.contains("MARKETALERTD_DATABASE_URL is not set"), "\(missing)")
        try await postgres.stop()
        let down = try await check(url.replacingOccurrences(of: "marketalertd@", with: "marketalertd:hunter2@"))
        #expect(down.status == 1 && down.stderr.contains("cannot reach the database"), "\(down)")
        #expect(!down.stderr.contains("hunter2") && !down.stdout.contains("hunter2"))
        daemon.terminate()
        await postgres.destroy()
    }
}
