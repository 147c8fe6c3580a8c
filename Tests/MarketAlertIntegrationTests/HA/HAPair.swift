import Foundation
import MarketAlertCore
import MarketAlertTestSupport

/// Two built daemons (instances `a` and `b`) in one HA group on a private PostgreSQL, watching the same
/// mock markets, with a webhook receiver; lease 2 s. Each instance has its own directory and config.
struct HAPair {
    let apis: MockMarketAPIs
    let receiver: MockWebhookReceiver
    let postgres: PostgresTestServer
    let a: DaemonHarness
    let b: DaemonHarness
    let databaseURL: String

    static let lease = 2.0

    /// `sinks`: more durable sinks under the webhooks' key (e.g. an `email:` list, indented as `standardConfig` has it).
    init(sinks: String = "") async throws {
        apis = try await MockMarketAPIs()
        receiver = MockWebhookReceiver(on: apis.server, answer: .status(200))
        postgres = try await PostgresTestServer()
        try await postgres.start()
        databaseURL = try await postgres.createDatabase("marketalertd")
        a = try DaemonHarness(apis: apis)
        b = try DaemonHarness(apis: apis)
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        let webhooks = #"[{ name: hook, url: "\#(receiver.url)", format: json, timeout: 2s }]"# + sinks
        for (harness, name) in [(a, "a"), (b, "b")] {
            try harness.writeConfig(harness.standardConfig(
                webhooks: webhooks, extra: "ha: { lease: 2s, instance: \(name) }\nhttp: { listen: \"127.0.0.1:0\" }"))
        }
    }

    var environment: [String: String] { ["MARKETALERTD_DATABASE_URL": databaseURL] }

    /// Starts `a` and waits until it leads, then `b` and waits until it runs (as a standby).
    func startBoth() async throws -> (a: DaemonProcess, b: DaemonProcess) {
        let first = try a.start(environment: environment)
        do {
            try await first.waitUntilRunning()
            try await first.waitForLine("a to lead", stderr: true) { $0.contains("this instance leads now") }
        } catch {
            first.terminate()
            throw error
        }
        let second = try b.start(environment: environment)
        do { try await second.waitUntilRunning() } catch {
            first.terminate()
            second.terminate()
            throw error
        }
        return (first, second)
    }

    func cleanUp() async {
        a.cleanUp()
        b.cleanUp()
        await postgres.destroy()
    }
}
