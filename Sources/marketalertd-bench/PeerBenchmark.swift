import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization

/// The daemon beside a peer on the same stream, in the same run: one local Binance WebSocket server, 50
/// markets, `bookTicker` frames only, each frame pushed to the daemon's connection and to the peer's (a
/// 25-line Python client, `scripts/bench-peer.py`: websockets + orjson, parse, keep best bid/ask, compute a
/// premium). Both see the same frames and the same host, so the ratio of their CPU per frame does not
/// depend on how busy the machine is the way each figure alone does.
///
/// With `floor`, a third client takes the same frames: `scripts/bench-floor.c`, one blocking `read` a wakeup
/// and a few hundred nanoseconds of C per frame. What it spends is the host's price of waking a thread for a
/// frame and reading it, which no client escapes; the report gives each client's CPU per frame above it.
struct PeerBenchmark {
    struct Side {
        var cpuSeconds: Double
        /// Context switches per thread (name: voluntary + involuntary) over the window.
        var switches: [(thread: String, count: Int)]
    }

    struct Result {
        var daemon: Side
        var peer: Side
        var floor: Side?
        var floorLine: String
        var frames: Int
        var window: Double
        var host: (stealTicks: Int, loadAverage: Double)?
        var peerLine: String
        var daemonSides: Int
        var daemonExit: String
        var peerExit: String

        func perFrame(_ side: Side) -> Double { frames > 0 ? side.cpuSeconds / Double(frames) : 0 }
        var ratio: Double { perFrame(peer) > 0 ? perFrame(daemon) / perFrame(peer) : .infinity }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let binary: String
    let python: String
    let script: String
    /// The built `scripts/bench-floor.c`, or nil for no floor client.
    let floor: String?
    let seconds: Int
    /// Frames a second on the one stream (each goes to both clients).
    let rate: Int
    let markets: BenchMarkets
    let apis: MockExchangeAPIs

    static let budget = 0.25

    func run() async throws -> Result {
        guard let descriptor = ExchangeRegistry.standard[.binance], let peerKit = descriptor.wire.stream, let stream = descriptor.stream else {
            throw Failure(description: "no Binance stream kit in the registry")
        }
        let server = try await WebSocketTestServer(persona: StreamPersonas.persona(peerKit)(StreamPersonaKnobs(.ack)))
        defer { Task { await server.shutdown() } }
        let url = server.url(peerKit.path).absoluteString
        let symbols = markets.assets.map { stream.marketID(MarketPair(base: $0, quote: "USDT")) }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let httpPort = MetricsProbe.freePort()
        let configPath = directory.appendingPathComponent("marketalertd.yaml").path
        try config(url: url, state: directory.appendingPathComponent("state").path, httpPort: httpPort)
            .write(toFile: configPath, atomically: true, encoding: .utf8)

        let stderrPath = directory.appendingPathComponent("stderr.log").path
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let daemon = Process()
        print("  " + ColdBinary.evict(binary))
        daemon.executableURL = URL(fileURLWithPath: binary)
        daemon.arguments = ["run", "--config", configPath]
        var environment = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "JOURNAL_STREAM", "WATCHDOG_USEC", "WATCHDOG_PID", "CREDENTIALS_DIRECTORY", "STATE_DIRECTORY"] {
            environment[key] = nil
        }
        daemon.environment = environment
        daemon.currentDirectoryURL = directory
        daemon.standardInput = FileHandle.nullDevice
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle(forWritingAtPath: stderrPath)
        try daemon.run()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        try await waitFor("the daemon's Binance subscription", timeout: .seconds(40)) {
            guard daemon.isRunning else { throw Failure(description: "the daemon exited: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")") }
            return server.openConnections.count { !$0.received.isEmpty } >= 1
        }

        let clientArguments = [url] + zip(symbols, markets.assets).map { "\($0)=\(markets.usdPrice($1))" }
        let (peer, peerOutput) = try Self.start(python, [script] + clientArguments)
        defer { if peer.isRunning { kill(peer.processIdentifier, SIGKILL) } }
        try await waitFor("the peer's subscription", timeout: .seconds(20)) {
            guard peer.isRunning else { throw Failure(description: "the peer exited (\(python) \(script)): is websockets/orjson installed?") }
            return server.openConnections.count { !$0.received.isEmpty } >= 2
        }
        let floorClient = try floor.map { try Self.start($0, clientArguments) }
        defer { if let floorClient, floorClient.process.isRunning { kill(floorClient.process.processIdentifier, SIGKILL) } }
        if let floorClient {
            try await waitFor("the floor client's subscription", timeout: .seconds(20)) {
                guard floorClient.process.isRunning else { throw Failure(description: "the floor client exited (\(floor ?? ""))") }
                return server.openConnections.count { !$0.received.isEmpty } >= 3
            }
        }
        let targets = server.openConnections.map(\.id)

        let pushed = FrameCounter()
        let feederStarted = Date()
        let feeder = Task {
            let clock = ContinuousClock()
            let step = Duration.seconds(1) / rate
            var next = clock.now
            var sequence = 1_000_000
            let prices = markets.assets.map { markets.usdPrice($0) }
            while !Task.isCancelled {
                for (index, symbol) in symbols.enumerated() {
                    sequence += 1
                    let frame = Self.bookTicker(symbol, usd: prices[index], sequence: sequence)
                    for target in targets { server.push(frame, to: target) }
                    pushed.value.wrappingAdd(1, ordering: .relaxed)
                    next += step
                    try? await clock.sleep(until: next)
                    if Task.isCancelled { return }
                }
            }
        }
        let clock = ContinuousClock()
        var start: (daemon: Double, peer: Double, floor: Double, frames: Int, at: ContinuousClock.Instant, host: HostCPU?, d: [String: Int], p: [String: Int])?
        var end = start
        var next = clock.now
        for second in 1...seconds {
            next += .seconds(1)
            try await clock.sleep(until: next)
            guard daemon.isRunning, peer.isRunning else { break }
            let reading = (
                daemon: ProcCPU.seconds(pid: daemon.processIdentifier) ?? 0, peer: ProcCPU.seconds(pid: peer.processIdentifier) ?? 0,
                floor: floorClient.flatMap { ProcCPU.seconds(pid: $0.process.processIdentifier) } ?? 0,
                frames: pushed.value.load(ordering: .relaxed), at: clock.now, host: HostCPU.read(),
                d: ThreadSwitches.read(pid: daemon.processIdentifier), p: ThreadSwitches.read(pid: peer.processIdentifier))
            if second == max(1, seconds / 2) { start = reading }
            end = reading
            if second % 10 == 0 { print("  t=\(second)s  frames pushed \(reading.frames)") }
        }
        feeder.cancel()
        await feeder.value
        let sides = httpPort.flatMap { MetricsProbe.streamSides(port: $0, since: feederStarted.addingTimeInterval(1)) }?.sides["binance"] ?? 0

        kill(peer.processIdentifier, SIGTERM)
        let peerExit = await stop(peer)
        let peerLine = String(decoding: peerOutput.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var floorLine = ""
        if let floorClient {
            kill(floorClient.process.processIdentifier, SIGTERM)
            floorLine = "\(String(decoding: floorClient.output.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), \(await stop(floorClient.process))"
        }
        kill(daemon.processIdentifier, SIGTERM)
        let daemonExit = await stop(daemon)

        guard let start, let end, end.frames > start.frames else { throw Failure(description: "the run ended before its second half (daemon \(daemonExit), peer \(peerExit))") }
        let window = end.at - start.at
        return Result(
            daemon: Side(cpuSeconds: end.daemon - start.daemon, switches: ThreadSwitches.delta(start.d, end.d)),
            peer: Side(cpuSeconds: end.peer - start.peer, switches: ThreadSwitches.delta(start.p, end.p)),
            floor: floorClient.map { _ in Side(cpuSeconds: end.floor - start.floor, switches: []) }, floorLine: floorLine,
            frames: end.frames - start.frames,
            window: Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18,
            host: HostCPU.window(from: start.host, to: end.host), peerLine: peerLine, daemonSides: sides,
            daemonExit: daemonExit, peerExit: peerExit)
    }

    /// Starts a client of the stream, its standard output piped.
    private static func start(_ executable: String, _ arguments: [String]) throws -> (process: Process, output: Pipe) {
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// A Binance `bookTicker` frame (`<symbol>@bookTicker` on the raw `/ws` endpoint).
    static func bookTicker(_ symbol: String, usd: Double, sequence: Int) -> String {
        let price = usd * (1 + Double(sequence % 7) * 0.00003)
        let places = DecimalFormat.places(for: price)
        let bid = DecimalFormat.fixed(price * 0.99999, places: places)
        let ask = DecimalFormat.fixed(price * 1.00001, places: places)
        return #"{"u":\#(sequence),"s":"\#(symbol)","b":"\#(bid)","B":"1.50000000","a":"\#(ask)","A":"2.50000000"}"#
    }

    /// Binance streaming (the peer's own stream), Bybit on REST for the other side, one `basis: mid` rule: every
    /// frame updates a premium, as the peer's does. REST is polled hourly so that it costs nothing in the window.
    private func config(url: String, state: String, httpPort: Int?) -> String {
        let assets = "[" + markets.assets.joined(separator: ", ") + "]"
        return """
            # Written by marketalertd-bench --peer.
            state_dir: \(state)
            exchanges:
              binance: { poll_interval: 1h, timeout: 5s, base_url: "\(apis.baseURL)", stream_url: "\(url)", stale_after: 30s }
              bybit: { poll_interval: 1h, timeout: 5s, base_url: "\(apis.baseURL)" }
            fx:
              poll_interval: 1h
              max_age: 2h
              providers:
                - name: dunamu
                  base_url: "\(apis.baseURL)"
            premium:
              reference: USD
              stablecoins_as: { USDT: USD, USDC: USD }
              max_quote_age: 2h
              rules:
                - name: peer
                  assets: \(assets)
                  exchanges: [binance, bybit]
                  quotes: [USDT]
                  basis: mid
                  levels:
                    - { pct: 5.0, severity: warning }
                  clear_pct: 4.0
                  repeat_interval: 1h
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            source_alerts: { after_failures: 3, after_silence: 5m }
            \(httpPort.map { "http:\n  listen: \"127.0.0.1:\($0)\"\n" } ?? "")
            """
    }

    private func waitFor(_ what: String, timeout: Duration, _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            guard ContinuousClock.now < deadline else { throw Failure(description: "timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func stop(_ process: Process) async -> String {
        let deadline = ContinuousClock.now + .seconds(15)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            return "still running 15 s after SIGTERM (killed)"
        }
        return "\(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus) after SIGTERM"
    }
}
