import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// `marketalertd check-config` as a real process on hostile or unusual config inputs: alias bombs, pipes,
/// FIFOs, directories, missing and unreadable files, URLs with credentials and short secrets.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
final class ConfigInputIntegrationTests: Sendable {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A small valid config; `webhooks` is YAML for `sinks.webhooks`.
    static func config(webhooks: String = "[]", oxr: Bool = false) -> String {
        """
        exchanges:
          binance: { poll_interval: 5s }
          bybit: { poll_interval: 5s }
        fx:
          providers:
            - name: dunamu
        \(oxr ? "    - name: openexchangerates\n      app_id_env: OXR_APP_ID" : "")
        premium:
          reference: USD
          rules:
            - name: global
              assets: [BTC]
              exchanges: [binance, bybit]
              quotes: [USDT]
              levels: [{ pct: 0.1, severity: warning }]
              clear_pct: 0.05
        sinks:
          journal: { enabled: false }
          webhooks: \(webhooks)
        """
    }

    func write(_ text: String, to name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func checkConfig(_ path: String, environment: [String] = []) async throws -> CommandResult {
        try await CommandRunner.run(["/usr/bin/env"] + environment + [DaemonProcess.binary.path, "check-config", "--config", path], timeoutSeconds: 60)
    }

    func shell(_ script: String) async throws -> CommandResult {
        try await CommandRunner.run(["/bin/bash", "-c", script], timeoutSeconds: 60)
    }

    // MARK: Bounded YAML

    @Test func aBillionLaughsFileIsRejectedQuicklyInBoundedMemory() async throws {
        var yaml = "lol0: &lol0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
        for level in 1...9 {
            let previous = Array(repeating: "*lol\(level - 1)", count: 10).joined(separator: ", ")
            yaml += "lol\(level): &lol\(level) [\(previous)]\n"
        }
        let path = try write(yaml, to: "laughs.yaml")
        let started = ContinuousClock.now
        // 2 GiB of address space: the unbounded expansion took 12 GB; a bounded check needs a small part.
        let result = try await shell("ulimit -v 2097152; exec '\(DaemonProcess.binary.path)' check-config --config '\(path)'")
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("expands to more than 100000 nodes"), "\(result)")
        #expect(result.stderr.contains("lol"), "names the key path: \(result)")
    }

    @Test func aFileOverOneMebibyteIsRejected() async throws {
        let path = try write(Self.config() + "\n" + String(repeating: "# padding\n", count: 110_000), to: "big.yaml")
        let result = try await checkConfig(path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("a config file may be at most 1048576 bytes"), "\(result)")
    }

    // MARK: Config paths

    @Test func aPipeAndAFIFOAreRead() async throws {
        let path = try write(Self.config(), to: "good.yaml")
        let piped = try await shell("cat '\(path)' | '\(DaemonProcess.binary.path)' check-config --config /dev/stdin")
        #expect(piped.status == 0, "\(piped)")
        #expect(piped.stdout.contains("/dev/stdin: ok"), "\(piped)")
        let fifo = directory.appendingPathComponent("config.fifo").path
        let viaFIFO = try await shell(
            "mkfifo '\(fifo)' && (cat '\(path)' > '\(fifo)' &) && '\(DaemonProcess.binary.path)' check-config --config '\(fifo)'")
        #expect(viaFIFO.status == 0, "\(viaFIFO)")
        #expect(viaFIFO.stdout.contains("ok (2 exchanges"), "\(viaFIFO)")
    }

    @Test func aDirectoryAMissingFileAndAnUnreadableFileAreNamedInWords() async throws {
        let asDirectory = try await checkConfig(directory.path)
        #expect(asDirectory.status == 1)
        #expect(asDirectory.stderr.contains("\(directory.path) is a directory"), "\(asDirectory)")
        #expect(!asDirectory.stderr.contains("NSCocoaErrorDomain"))

        let missing = try await checkConfig(directory.appendingPathComponent("nope.yaml").path)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nope.yaml: no such file"), "\(missing)")

        // Unreadable for the user running it (tests may run as root, which reads everything: drop to nobody).
        let secret = try write(Self.config(), to: "private.yaml")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let runAs = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        if getuid() != 0 { try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: secret) }
        let unreadable = try await CommandRunner.run(runAs + [DaemonProcess.binary.path, "check-config", "--config", secret], timeoutSeconds: 60)
        #expect(unreadable.status == 1)
        #expect(unreadable.stderr.contains("cannot read \(secret): permission denied"), "\(unreadable)")
        #expect(!unreadable.stderr.contains("You don't have permission"))
    }

    // MARK: Credentials and secrets

    @Test func aWebhookURLWithCredentialsIsRejectedWithoutEchoingThem() async throws {
        let path = try write(
            Self.config(webhooks: #"[{ name: ops, url: "https://alice:hunter2hunter2@hooks.example/x" }]"#), to: "creds.yaml")
        let result = try await checkConfig(path)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("sinks.webhooks[0].url: must not contain a user name or password"), "\(result)")
        #expect(!result.stderr.contains("hunter2") && !result.stderr.contains("alice"), "\(result)")

        let fromEnv = try write(Self.config(webhooks: #"[{ name: chat, url_env: HOOK_URL }]"#), to: "env.yaml")
        let warned = try await checkConfig(fromEnv, environment: ["HOOK_URL=https://bob:s3cr3tpassw0rd@hooks.example/y"])
        #expect(warned.stderr.contains("webhook \"chat\" is disabled"), "\(warned)")
        #expect(warned.stderr.contains("HOOK_URL contains a user name or password"), "\(warned)")
        #expect(!warned.stderr.contains("s3cr3t") && !warned.stderr.contains("bob"), "\(warned)")
    }

    @Test func aSecretShorterThanEightCharactersIsWarnedAboutByName() async throws {
        let path = try write(Self.config(oxr: true), to: "oxr.yaml")
        let short = try await checkConfig(path, environment: ["OXR_APP_ID=x7Qz"])
        #expect(short.status == 0, "\(short)")
        #expect(short.stderr.contains("app_id_env: secret OXR_APP_ID is only 4 characters"), "\(short)")
        #expect(!short.stderr.contains("x7Qz"))
        let long = try await checkConfig(path, environment: ["OXR_APP_ID=0123456789abcdef0123456789abcdef"])
        #expect(long.status == 0)
        #expect(!long.stderr.contains("OXR_APP_ID"), "\(long)")
    }
}
