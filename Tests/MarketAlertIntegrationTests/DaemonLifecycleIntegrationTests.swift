import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// Signals and restarts of the built daemon: graceful shutdown, SIGHUP reload (valid and broken), and a
/// restart that must not repeat an alert already sent.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct DaemonLifecycleIntegrationTests {
    @Test func sigtermShutsDownGracefullyWithinFiveSecondsAndExitsZero() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let daemon = try await harness.startStandard(btc: (binance: "100000", bybit: "100000", upbit: "140000000"))
        defer { daemon.terminate() }
        // A hanging exchange request must not hold shutdown up either.
        apis.override("bybit", with: MockHTTPServer.Response(body: Data("[]".utf8), delay: .seconds(30)))
        let started = ContinuousClock.now
        daemon.signal(SIGTERM)
        let status = await daemon.waitForExit(timeout: .seconds(5))
        #expect(status == 0, "stderr: \(daemon.stderrLines.suffix(10))")
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(daemon.stderrLines.contains { $0.contains("marketalertd stopped") })
    }

    @Test func sigtermDuringAReloadThatBlocksStopsCleanlyWithExitZero() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let daemon = try await harness.startStandard(btc: (binance: "100000", bybit: "100000", upbit: "140000000"))
        defer { daemon.terminate() }
        // The config becomes a FIFO nobody writes: the reload's read blocks for ever.
        try FileManager.default.removeItem(atPath: harness.configPath)
        #expect(mkfifo(harness.configPath, 0o600) == 0)
        daemon.signal(SIGHUP)
        try await daemon.waitForLine("the reload to begin", stderr: true) { $0.contains("reloading configuration") }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        daemon.signal(SIGTERM)
        let status = await daemon.waitForExit(timeout: .seconds(6))
        #expect(status == 0, "stderr: \(daemon.stderrLines.suffix(10))")
        #expect(ContinuousClock.now - started < .seconds(6))
        #expect(daemon.stderrLines.contains { $0.contains("marketalertd stopped") })
    }

    @Test(arguments: ["garbage", "empty"])
    func aDamagedStateDatabaseIsKeptAsideAndTheDaemonStartsAfreshLoudly(_ damage: String) async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        let database = harness.stateDirectory + "/state.sqlite"
        let bytes = damage == "garbage" ? Data(repeating: 0x5A, count: 8192) : Data()
        #expect(FileManager.default.createFile(atPath: database, contents: bytes))
        let daemon = try await harness.startStandard(btc: (binance: "100000", bybit: "100000", upbit: "140000000"))
        defer { daemon.terminate() }
        let alert = try await daemon.waitForEvent("the state store alert") { $0.key == "source/state" }
        #expect(alert.status == "firing" && alert.severity == .critical)
        #expect(daemon.stderrLines.contains { $0.contains("state store damaged") && $0.contains("kept aside") })
        let kept = try FileManager.default.contentsOfDirectory(atPath: harness.stateDirectory).filter { $0.hasPrefix("state.sqlite.corrupt-") }
        #expect(kept.count == 1, "\(kept)")
        #expect(kept.first.flatMap { FileManager.default.contents(atPath: harness.stateDirectory + "/" + $0) } == bytes)
        // And it keeps working on the fresh store.
        apis.set("bybit", "BTC", "100200")
        try await daemon.waitForEvent("a premium after the recovery") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func sighupWithABrokenConfigKeepsTheOldOneAndAValidOneIsApplied() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let daemon = try await harness.startStandard(btc: (binance: "100000", bybit: "100000", upbit: "140000000"))
        defer { daemon.terminate() }

        try harness.writeConfig(harness.standardConfig() + "\nexchanges_typo: {}\npremium_extra: [\n")
        daemon.signal(SIGHUP)
        try await daemon.waitForLine("the rejection", stderr: true) { $0.contains("reload rejected") }
        #expect(daemon.stderrLines.contains { $0.contains("config rejected") && $0.contains("not valid YAML") })
        // Still running on the old config: the old rule still alerts.
        apis.set("bybit", "BTC", "100200")
        try await daemon.waitForEvent("global rule after a rejected reload") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        #expect(daemon.isRunning)

        // A valid config with a renamed rule replaces the old one.
        try harness.writeConfig(harness.standardConfig(globalRuleName: "renamed"))
        daemon.signal(SIGHUP)
        try await daemon.waitForLine("the reload", stderr: true) { $0.contains("configuration reloaded") }
        try await daemon.waitForEvent("the renamed rule") { $0.key == "premium/renamed/BTC" && $0.status == "firing" }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func aRestartDoesNotRepeatAnAlertAlreadySent() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        // bybit 0.2% over binance: fires at once.
        let first = try await harness.startStandard(btc: (binance: "100000", bybit: "100200", upbit: "140000000"))
        defer { first.terminate() }
        try await first.waitForEvent("the first alert") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(5)) == 0)

        let second = try harness.start(arguments: ["--log-level", "debug"])
        defer { second.terminate() }
        try await second.waitUntilRunning()
        // Many polls with the premium still there: nothing new. Then it clears: exactly one resolved.
        let polled = apis.server.requests(to: "/api/v3/ticker/24hr").count
        try await second.waitForLine("ten more polls", stderr: true, timeout: .seconds(20)) { _ in
            apis.server.requests(to: "/api/v3/ticker/24hr").count >= polled + 10
        }
        #expect(!second.events.contains { $0.key == "premium/global/BTC" }, "repeated after restart: \(second.stdoutLines)")
        apis.set("bybit", "BTC", "100000")
        try await second.waitForEvent("resolved after restart") { $0.key == "premium/global/BTC" && $0.status == "resolved" }
        #expect(second.events.filter { $0.key == "premium/global/BTC" }.map(\.status) == ["resolved"])
    }
}
