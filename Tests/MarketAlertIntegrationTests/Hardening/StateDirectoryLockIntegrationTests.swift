import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// Two real `marketalertd run` processes on one state_dir: the second refuses to start.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct StateDirectoryLockIntegrationTests {
    @Test func aSecondDaemonOnTheSameStateDirectoryRefusesToStartNamingTheLockAndTheHolder() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let first = try await harness.startStandard(btc: (binance: "100000", bybit: "100000", upbit: "140000000"))
        defer { first.terminate() }
        let lockPath = URL(fileURLWithPath: harness.stateDirectory).appendingPathComponent("marketalertd.lock").path
        #expect(try String(contentsOfFile: lockPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "\(first.pid)")

        let second = try harness.start()
        defer { second.terminate() }
        let status = await second.waitForExit(timeout: .seconds(10))
        #expect(status == 1, "stderr: \(second.stderrLines.suffix(10))")
        let refusal = second.stderrLines.first { $0.contains("state directory is in use") }
        #expect(refusal?.contains(lockPath) == true, "stderr: \(second.stderrLines.suffix(10))")
        #expect(refusal?.contains("process \(first.pid)") == true, "stderr: \(second.stderrLines.suffix(10))")
        #expect(!second.stderrLines.contains { $0.contains("marketalertd running") })
        #expect(first.isRunning)

        // The lock goes with its holder: once the first stops, a new daemon starts on the same state.
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(5)) == 0)
        let third = try harness.start()
        defer { third.terminate() }
        try await third.waitUntilRunning()
        #expect(try String(contentsOfFile: lockPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "\(third.pid)")
        third.signal(SIGTERM)
        #expect(await third.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func aKilledHolderLeavesNoStaleLock() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let first = try await harness.startStandard(btc: (binance: "100000", bybit: "100000", upbit: "140000000"))
        first.terminate()  // SIGKILL: no cleanup code runs
        let second = try harness.start()
        defer { second.terminate() }
        try await second.waitUntilRunning()
        #expect(second.isRunning)
    }
}
