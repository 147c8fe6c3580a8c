import Foundation
import MarketAlertCore
import MarketAlertTestSupport

/// A temp directory with a config pointing every base_url at the mock APIs, and the daemon running on it.
struct DaemonHarness {
    let directory: URL
    let apis: MockMarketAPIs
    var configPath: String { directory.appendingPathComponent("marketalertd.yaml").path }
    var stateDirectory: String { directory.appendingPathComponent("state").path }

    init(apis: MockMarketAPIs) throws {
        self.apis = apis
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-it-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func writeConfig(_ yaml: String) throws {
        try yaml.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// The standard test config: two global USDT exchanges, a kimchi rule through USD/KRW, fast polls.
    /// `webhooks` is YAML for `sinks.webhooks` (a flow sequence), if any.
    func standardConfig(globalRuleName: String = "global", webhooks: String? = nil, extra: String = "") -> String {
        let base = apis.baseURL
        return """
            state_dir: \(stateDirectory)
            display_time_zones: [UTC, Asia/Seoul]
            exchanges:
              binance: { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
              bybit:   { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
              upbit:   { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
            fx:
              poll_interval: 500ms
              max_age: 15m
              providers:
                - name: dunamu
                  base_url: "\(base)"
                - name: openexchangerates
                  base_url: "\(base)"
                  app_id_env: OXR_APP_ID
            premium:
              reference: USD
              max_quote_age: 30s
              rules:
                - name: \(globalRuleName)
                  assets: [BTC]
                  exchanges: [binance, bybit]
                  quotes: [USDT]
                  levels:
                    - { pct: 0.05, severity: notice }
                    - { pct: 0.1, severity: warning }
                  clear_pct: 0.04
                - name: kimchi
                  assets: [BTC]
                  exchanges: [upbit, binance]
                  quotes: [KRW, USDT]
                  levels:
                    - { pct: 3.0, severity: warning }
                    - { pct: 5.0, severity: critical }
                  clear_pct: 2.5
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
              webhooks: \(webhooks ?? "[]")
            source_alerts: { after_failures: 2, after_silence: 10m }
            \(extra)
            """
    }

    /// A config with only an IPO source (no exchanges, FX or premium rules): the TWSE list on the mock server.
    func ipoOnlyConfig(pollInterval: String = "250ms", notify: String = "[opens, last_day]") -> String {
        """
        state_dir: \(stateDirectory)
        ipo:
          sources:
            - name: twse
              base_url: "\(apis.baseURL)"
              poll_interval: \(pollInterval)
              timeout: 2s
              time_zone: Asia/Taipei
          notify: \(notify)
        sinks:
          stdout: { format: json }
          journal: { enabled: false }
        """
    }

    func start(
        arguments: [String] = [], environment: [String: String] = [:], stdoutFile: String? = nil, stdoutFullPipe: Bool = false
    ) throws -> DaemonProcess {
        try DaemonProcess(
            arguments: ["run", "--config", configPath] + arguments,
            environment: ["OXR_APP_ID": "test-app-id"].merging(environment) { $1 }, workingDirectory: directory, stdoutFile: stdoutFile,
            stdoutFullPipe: stdoutFullPipe)
    }

    /// The usual start of a premium test: BTC quoted at `btc` on the three mock exchanges, the standard config
    /// (with `webhooks` and `extra`, see `standardConfig`), the daemon started with `environment` and running. A
    /// daemon that does not come up is terminated before the error is thrown; the caller terminates a running one.
    func startStandard(
        btc: (binance: String, bybit: String, upbit: String), webhooks: String? = nil, extra: String = "",
        environment: [String: String] = [:]
    ) async throws -> DaemonProcess {
        apis.set("binance", "BTC", btc.binance)
        apis.set("bybit", "BTC", btc.bybit)
        apis.set("upbit", "BTC", btc.upbit)
        try writeConfig(standardConfig(webhooks: webhooks, extra: extra))
        let daemon = try start(environment: environment)
        do {
            try await daemon.waitUntilRunning()
        } catch {
            daemon.terminate()
            throw error
        }
        return daemon
    }

    /// Runs `marketalertd once` (plus `arguments`, e.g. `--all`) on the config to completion (bounded by `timeout(1)`).
    func once(_ arguments: [String] = []) async throws -> CommandResult {
        try await CommandRunner.run([DaemonProcess.binary.path, "once", "--config", configPath] + arguments, timeoutSeconds: 30)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }
}

extension DaemonProcess {
    /// Alert events printed so far (JSON lines on stdout).
    var events: [AlertEvent] {
        stdoutLines.compactMap { try? AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data($0.utf8)) }
    }

    /// Waits for an alert event on stdout matching `predicate`.
    @discardableResult
    func waitForEvent(_ description: String, timeout: Duration = .seconds(20), where predicate: @escaping @Sendable (AlertEvent) -> Bool) async throws -> AlertEvent {
        let line = try await waitForLine(description, timeout: timeout) { line in
            guard let event = try? AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data(line.utf8)) else { return false }
            return predicate(event)
        }
        return try AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data(line.utf8))
    }

    /// Waits for the daemon's "running" log line (READY).
    func waitUntilRunning() async throws {
        try await waitForLine("the daemon to start", stderr: true) { $0.contains("marketalertd running") }
    }
}
