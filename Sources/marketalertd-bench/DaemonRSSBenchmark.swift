import Foundation
import MarketAlertCore

/// Runs the release daemon against `MockExchangeAPIs` (8 exchanges × 50 assets, polled every second) and
/// samples its resident memory once a second.
struct DaemonRSSBenchmark {
    struct Result {
        var samples: [ProcStatus]
        var traffic: [String: (requests: Int, polls: Int)]
        /// `key status severity` of each premium alert.
        var premiumEvents: [String]
        var sourceEvents: [String]
        var stayedAlive: Bool
        var exitStatus: String
        var exitedCleanly: Bool
        var stderrTail: [String]
        /// CPU seconds the daemon used over the second half of the run, and that half's length.
        var steadyCPU: (seconds: Double, over: Double)
        /// The host over the same window: steal ticks, and the load average at its end.
        var host: (stealTicks: Int, loadAverage: Double)?
        /// The streaming run (from `/api/v1/status` at the end): premium sides showing a stream quote per
        /// exchange, and each source's transport; nil without.
        var streamSides: (sides: [String: Int], transports: [String: String])? = nil

        /// Share of one core over the second half of the run, in percent.
        var cpuPercent: Double { steadyCPU.over > 0 ? steadyCPU.seconds / steadyCPU.over * 100 : 0 }

        /// Median RSS over the second half of the run.
        var steadyRSS: Int {
            let tail = samples.suffix(max(1, samples.count / 2)).map(\.rss).sorted()
            return tail.isEmpty ? 0 : tail[tail.count / 2]
        }

        var peakRSS: Int { samples.map(\.hwm).max() ?? 0 }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let binary: String
    let seconds: Int
    let apis: MockExchangeAPIs
    /// `1s` (load) or `1h` (idle: one fetch each at start, then nothing from outside).
    var pollInterval = "1s"
    /// The streaming run: every exchange on its local WebSocket server, fed `streamRate` frames a second.
    var streams: StreamFeeds?
    var streamRate = 50
    /// The exchanges configured; nil: every registry exchange.
    var exchanges: [ExchangeID]?
    /// The streaming run drops every connection this often (nil: never).
    var dropEvery: Duration?

    func run() async throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw Failure(description: "no daemon binary at \(binary) (build it: swift build -c release --product marketalertd)")
        }
        // The streaming run reads /api/v1/status; the idle run has the server listening (and unasked), so its
        // CPU figure includes what the HTTP server costs when nobody calls it.
        let httpPort = streams == nil && pollInterval == "1s" ? nil : MetricsProbe.freePort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = directory.appendingPathComponent("marketalertd.yaml").path
        try DaemonConfig.yaml(baseURL: apis.baseURL, stateDirectory: directory.appendingPathComponent("state").path, assets: apis.assets, pollInterval: pollInterval,
            streams: streams?.urls ?? [:], httpPort: httpPort, exchanges: exchanges)
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        let stdoutPath = directory.appendingPathComponent("stdout.jsonl").path
        let stderrPath = directory.appendingPathComponent("stderr.log").path
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)

        let process = Process()
        print("  " + ColdBinary.evict(binary))
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", "--config", configPath]
        var environment = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "JOURNAL_STREAM", "WATCHDOG_USEC", "WATCHDOG_PID", "CREDENTIALS_DIRECTORY", "STATE_DIRECTORY"] {
            environment[key] = nil
        }
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        // Alerts go to a file (not a pipe this process must drain), so they can be counted afterwards.
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        let pid = process.processIdentifier

        let started = ContinuousClock.now
        while !(try String(contentsOfFile: stderrPath, encoding: .utf8)).contains("marketalertd running") {
            guard process.isRunning else { break }
            guard ContinuousClock.now - started < .seconds(30) else {
                kill(pid, SIGKILL)
                throw Failure(description: "the daemon did not report \"running\" within 30 s")
            }
            try await Task.sleep(for: .milliseconds(50))
        }

        var feeder: Task<Void, Never>?
        var feederStarted = Date()
        if let streams {
            let rate = streamRate
            let subscribed = ContinuousClock.now
            while streams.subscribed.count < streams.feeds.count, ContinuousClock.now - subscribed < .seconds(30) {
                try await Task.sleep(for: .milliseconds(50))
            }
            print("  streams subscribed: \(streams.subscribed.map(\.rawValue).sorted().joined(separator: ", "))")
            feederStarted = Date()
            let dropEvery = dropEvery
            feeder = Task { await streams.run(rate: rate, dropEvery: dropEvery) }
        }
        defer { feeder?.cancel() }

        let sampled = try await DaemonSampling.sample(process, seconds: seconds)
        let samples = sampled.samples
        let traffic = apis.traffic()
        feeder?.cancel()
        await feeder?.value
        let streamSides = httpPort.flatMap { MetricsProbe.streamSides(port: $0, since: feederStarted.addingTimeInterval(1)) }
        let (exitStatus, exitedCleanly) = try await DaemonSampling.stop(process)

        let decoder = AlertEvent.makeDecoder()
        let events = (try String(contentsOfFile: stdoutPath, encoding: .utf8)).split(separator: "\n").compactMap {
            try? decoder.decode(AlertEvent.self, from: Data($0.utf8))
        }
        let stderr = (try String(contentsOfFile: stderrPath, encoding: .utf8)).split(separator: "\n").map(String.init)
        return Result(
            samples: samples, traffic: traffic, premiumEvents: events.filter { $0.kind == .premium }.map { "\($0.key) \($0.status) \($0.severity.rawValue)" },
            sourceEvents: events.filter { $0.kind == .source }.map { "\($0.key) \($0.status): \($0.summary)" },
            stayedAlive: sampled.stayedAlive, exitStatus: exitStatus, exitedCleanly: exitedCleanly, stderrTail: Array(stderr.suffix(15)),
            steadyCPU: sampled.steadyCPU, host: sampled.host,
            streamSides: streamSides)
    }
}
