import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import NIOCore
import NIOPosix
import Testing

/// `marketalertd status`, `alerts` and `silence add|list|expire` against the running daemon: the address
/// and token found through the config (or `--url`), human tables and `--json`.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct CLIIntegrationTests {
    static let token = "cli-" + UUID().uuidString

    /// A port free right now on 127.0.0.1 (bound, then released).
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }

    func cli(_ arguments: [String], token: String? = nil) async throws -> CommandResult {
        let environment = token.map { ["env", "OPS_TOKEN=\($0)"] } ?? ["env", "-u", "OPS_TOKEN"]
        return try await CommandRunner.run(environment + [DaemonProcess.binary.path] + arguments, timeoutSeconds: 60)
    }

    @Test func statusAlertsAndSilencesFromTheCommandLine() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        let port = try await Self.freePort()
        try harness.writeConfig(harness.standardConfig(extra: "http:\n  listen: \"127.0.0.1:\(port)\"\n  token_env: OPS_TOKEN\n"))
        let daemon = try harness.start(environment: ["OPS_TOKEN": Self.token])
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)
        #expect(api.base == "http://127.0.0.1:\(port)")
        try await daemon.waitUntil("ready") { try await api.get("/readyz").status == 200 }
        let config = ["--config", harness.configPath]

        let status = try await cli(["status"] + config)
        #expect(status.succeeded, "\(status)")
        #expect(status.stdout.contains("ready: 3 exchanges ok"), "\(status.stdout)")
        let binance = status.stdout.split(separator: "\n").first { $0.hasPrefix("binance ") }?.split(separator: " ").map(String.init)
        #expect(status.stdout.contains("SOURCE"), "\(status.stdout)")
        #expect(binance?.prefix(4) == ["binance", "exchange", "yes", "rest"], "\(status.stdout)")
        #expect(status.stdout.contains("binance 100,000.00 USDT"), "\(status.stdout)")
        #expect(status.stdout.contains("USD/KRW"))
        let json = try await cli(["status", "--json"] + config)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["sources"] as? [[String: Any]])?.count == 5)

        // Changes need the token: from the config's token_env (here the environment).
        let add = ["silence", "add"] + config + ["--match", "key=premium/global/*", "--match", "severity=notice", "--for", "1h", "--comment", "bybit maintenance", "--author", "ops"]
        let refused = try await cli(add)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Bearer"), "\(refused)")
        let bad = try await cli(["silence", "add"] + config + ["--match", "key=x", "--match", "colour=red", "--for", "1h", "--comment", "c"], token: Self.token)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("matchers.colour"), "\(bad)")
        let added = try await cli(add, token: Self.token)
        #expect(added.succeeded, "\(added)")
        let id = added.trimmed
        #expect(UUID(uuidString: id) != nil, "\(added.stdout)")

        apis.set("bybit", "BTC", "100060.00")  // a notice, held back
        try await daemon.waitUntil("the silenced alert") {
            try await cli(["alerts"] + config).stdout.contains(id)
        }
        let alerts = try await cli(["alerts"] + config)
        #expect(alerts.stdout.contains("premium/global/BTC") && alerts.stdout.contains("notice"), "\(alerts.stdout)")
        let list = try await cli(["silence", "list", "--url", api.base])
        #expect(list.stdout.contains(id) && list.stdout.contains("active") && list.stdout.contains("key=premium/global/* severity=notice"), "\(list.stdout)")
        #expect(list.stdout.contains("bybit maintenance") && list.stdout.contains("ops"))

        let expired = try await cli(["silence", "expire", id] + config, token: Self.token)
        #expect(expired.succeeded && expired.trimmed == "expired \(id)", "\(expired)")
        try await daemon.waitForEvent("the notice, once the silence ended") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        let listJSON = try await cli(["silence", "list", "--json", "--url", api.base])
        let silences = (try JSONSerialization.jsonObject(with: Data(listJSON.stdout.utf8)) as? [String: Any])?["silences"] as? [[String: Any]]
        #expect(silences?.first?["active"] as? Bool == false)
        #expect(try await cli(["silence", "expire", "no-such-id"] + config, token: Self.token).stderr.contains("no silence with id"))
        #expect(!daemon.stderrLines.contains { $0.contains(Self.token) })
        await api.shutdown()
    }

    @Test func withoutADaemonOrAnAddressTheCommandsSaySo() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let noHTTP = directory.appendingPathComponent("a.yaml").path
        try "state_dir: \(directory.path)\n".write(toFile: noHTTP, atomically: true, encoding: .utf8)
        let portZero = directory.appendingPathComponent("b.yaml").path
        try "http:\n  listen: \"127.0.0.1:0\"\n".write(toFile: portZero, atomically: true, encoding: .utf8)
        let down = directory.appendingPathComponent("c.yaml").path
        let port = try await Self.freePort()
        try "http:\n  listen: \"127.0.0.1:\(port)\"\n".write(toFile: down, atomically: true, encoding: .utf8)

        let none = try await cli(["status", "--config", noHTTP])
        #expect(none.status != 0 && none.stderr.contains("has no http section"), "\(none)")
        let zero = try await cli(["alerts", "--config", portZero])
        #expect(zero.status != 0 && zero.stderr.contains("port 0"), "\(zero)")
        let began = ContinuousClock.now
        let unreachable = try await cli(["status", "--config", down])
        #expect(unreachable.status == 1 && unreachable.stderr.contains("cannot reach marketalertd at http://127.0.0.1:\(port)"), "\(unreachable)")
        #expect(ContinuousClock.now - began < .seconds(10))
    }
}
