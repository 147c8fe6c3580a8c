import Foundation
import MarketAlertCore
import Synchronization

/// Runs the release daemon with a `basis: depth` rule over the round-2 eight × the watched assets, every
/// market fed depth messages by `DepthFeeds`, and measures over the second half of the run its CPU (with
/// the host's steal and load), its resident memory every second, and frame → notification latency: each
/// push that flips the latency market against the moment its alert line is read from the daemon's stdout
/// (a pipe read by a thread of its own, stamped on the same monotonic clock as the push).
struct DepthStreamBenchmark {
    struct Result {
        /// The samples, CPU and host window, alerts and exit, as the streaming run reports them.
        var daemon: DaemonRSSBenchmark.Result
        /// Frame → notification, seconds, per flip answered; flips pushed; flips without their alert.
        var latencies: [Double]
        var flips: Int
        var unanswered: Int
        /// Premium alerts of other assets than the latency one (none expected).
        var strayAlerts: [String]
        /// From `/metrics` at the end: book resyncs per exchange and reason; markets per exchange with a book
        /// holding levels on both sides.
        var resyncs: [String: Double]
        var booksWithLevels: [String: Int]
        var metricsRead: Bool
        /// Book requests the mock REST server answered: Binance `/api/v3/depth` snapshots, Coinbase books.
        var binanceSnapshots = 0
        var coinbaseBooks = 0
    }

    let binary: String
    let seconds: Int
    let apis: MockExchangeAPIs
    let feeds: DepthFeeds

    func run() async throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw DaemonRSSBenchmark.Failure(description: "no daemon binary at \(binary) (build it: scripts/build-release marketalertd)")
        }
        guard let port = MetricsProbe.freePort() else { throw DaemonRSSBenchmark.Failure(description: "no free port for the HTTP API") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-depthbench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = directory.appendingPathComponent("marketalertd.yaml").path
        try DepthDaemonConfig.yaml(
            baseURL: apis.baseURL, stateDirectory: directory.appendingPathComponent("state").path, assets: apis.assets, streams: feeds.streams.urls, httpPort: port
        ).write(toFile: configPath, atomically: true, encoding: .utf8)
        let stderrPath = directory.appendingPathComponent("stderr.log").path
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
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        let lines = StampedLines(stdout.fileHandleForReading)
        try process.run()
        let pid = process.processIdentifier

        let started = ContinuousClock.now
        while !(try String(contentsOfFile: stderrPath, encoding: .utf8)).contains("marketalertd running") {
            guard process.isRunning else { break }
            guard ContinuousClock.now - started < .seconds(30) else {
                kill(pid, SIGKILL)
                throw DaemonRSSBenchmark.Failure(description: "the daemon did not report \"running\" within 30 s")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let streams = feeds.streams
        while streams.subscribed.count < streams.feeds.count, ContinuousClock.now - started < .seconds(40) {
            try await Task.sleep(for: .milliseconds(50))
        }
        // Subscriptions go out in several requests on some exchanges: let them all arrive before the snapshots.
        try await Task.sleep(for: .seconds(2))
        print("  streams subscribed: \(streams.subscribed.map(\.rawValue).sorted().joined(separator: ", ")); feeding \(feeds.pattern.rawValue)")
        feeds.sendSnapshots()
        feeds.start()

        let sampled = try await DaemonSampling.sample(process, seconds: seconds)
        let samples = sampled.samples
        feeds.stop()
        let metrics = MetricsProbe.get(port: port, path: "/metrics")
        let (exitStatus, exitedCleanly) = try await DaemonSampling.stop(process)
        let stamped = lines.finish()

        let decoder = AlertEvent.makeDecoder()
        let events = stamped.compactMap { line in (try? decoder.decode(AlertEvent.self, from: Data(line.text.utf8))).map { (line.at, $0) } }
        let key = "premium/\(DepthDaemonConfig.rule)/\(feeds.latencyAsset)"
        let latencyAlerts = events.filter { $0.1.kind == .premium && $0.1.key == key }.map { (at: $0.0, status: $0.1.status) }
        let (latencies, unanswered) = Self.match(flips: feeds.flips.withLock { $0 }, alerts: latencyAlerts)
        let stderr = (try String(contentsOfFile: stderrPath, encoding: .utf8)).split(separator: "\n").map(String.init)
        let daemon = DaemonRSSBenchmark.Result(
            samples: samples, traffic: apis.traffic(), premiumEvents: events.filter { $0.1.kind == .premium }.map { "\($0.1.key) \($0.1.status) \($0.1.severity.rawValue)" },
            sourceEvents: events.filter { $0.1.kind == .source }.map { "\($0.1.key) \($0.1.status): \($0.1.summary)" },
            stayedAlive: sampled.stayedAlive, exitStatus: exitStatus, exitedCleanly: exitedCleanly, stderrTail: Array(stderr.suffix(40)),
            steadyCPU: sampled.steadyCPU, host: sampled.host)
        return Result(
            daemon: daemon, latencies: latencies, flips: feeds.flips.withLock { $0.count }, unanswered: unanswered,
            strayAlerts: events.filter { $0.1.kind == .premium && $0.1.key != key }.map { "\($0.1.key) \($0.1.status)" },
            resyncs: PrometheusLines.values(metrics ?? "", "marketalertd_book_resyncs_total", by: ["exchange", "reason"]),
            booksWithLevels: PrometheusLines.booksWithLevels(metrics ?? ""), metricsRead: metrics != nil,
            binanceSnapshots: apis.server.requests(to: "/api/v3/depth").count,
            coinbaseBooks: apis.server.requests.filter { $0.path.hasPrefix("/products/") && $0.path.hasSuffix("/book") }.count)
    }

    /// Each flip against the first alert of its status read after it and before the next flip.
    static func match(flips: [(at: UInt64, status: String)], alerts: [(at: UInt64, status: String)]) -> ([Double], Int) {
        var latencies: [Double] = []
        var unanswered = 0
        var cursor = 0
        for (position, flip) in flips.enumerated() {
            let end = position + 1 < flips.count ? flips[position + 1].at : UInt64.max
            while cursor < alerts.count, alerts[cursor].at < flip.at { cursor += 1 }
            if cursor < alerts.count, alerts[cursor].at < end, alerts[cursor].status == flip.status {
                latencies.append(Double(alerts[cursor].at - flip.at) / 1e9)
                cursor += 1
            } else {
                unanswered += 1
            }
        }
        return (latencies, unanswered)
    }
}

/// The daemon's stdout, read by a thread of its own as it comes: each complete line with the monotonic time
/// (`Monotonic.now()`) of the read that completed it.
final class StampedLines: Sendable {
    private let lines = Mutex<[(at: UInt64, text: String)]>([])
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let fd = handle.fileDescriptor
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let at = Monotonic.now()
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let text = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    lines.withLock { $0.append((at, text)) }
                }
            }
            done.signal()
        }
        thread.name = "daemon-stdout"
        thread.start()
    }

    /// Every line read, once the daemon has closed its stdout (it has exited).
    func finish() -> [(at: UInt64, text: String)] {
        _ = done.wait(timeout: .now() + 5)
        return lines.withLock { $0 }
    }
}
