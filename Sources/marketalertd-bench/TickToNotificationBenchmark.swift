import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Frame received → notification written, inside the process: the real runtime (`DataPathService`: stream
/// driver, inbox, engine loop, publisher) with a real Binance stream source connected to a local
/// `WebSocketTestServer`, and the JSON stdout sink writing to a file. Each pushed bookTicker frame moves
/// BTC across the rule's level (fire) or back under its clear level (resolve), so every frame is one
/// notification. The latency is the time after the sink's write minus the quote's `receivedAt`, which the
/// stream driver stamps when the frame arrives (the `marketalertd_tick_to_notification_seconds` idea, from
/// the frame instead of the engine).
struct TickToNotificationBenchmark {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Result {
        var samples: Samples
        var notifications: Int
    }

    /// Bybit's side of the premium: a fixed REST quote (mid 100.01).
    private struct FixedQuotes: QuoteSource {
        let exchange: ExchangeID
        let quotes: @Sendable (Date) -> [Quote]

        func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] { quotes(Date()) }
    }

    let frames: Int

    func run() async throws -> Result {
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.binance)(StreamPersonaKnobs(.ack)))
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-bench-\(UUID().uuidString).jsonl").path
        let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot open \(output)") }
        defer {
            close(fd)
            unlink(output)
        }
        let sink = TimedSink(inner: StdoutSink(format: .json, displayTimeZones: ["UTC"]) { line in Self.write(line, to: fd) })
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let clock = SystemClock()
        let runtime = await DataPathService.make(
            settings: Self.settings(streamURL: server.url("/ws")), store: nil, sinks: [sink],
            factory: ProducerFactory(
                quoteSource: { settings in
                    FixedQuotes(exchange: settings.id) { now in
                        settings.id == .bybit ? [Self.quote(.bybit, market: "BTCUSDT", bid: "100.00", ask: "100.02", at: now, transport: .rest)] : []
                    }
                },
                streamSource: { settings in ExchangeRegistry.standard.makeStreamSource(settings, context: StreamContext(clock: clock, logger: logger)) }),
            clock: clock, logger: logger, executor: DataPathExecutor.shared)
        let task = Task { try? await runtime.run() }
        defer { task.cancel() }
        try await server.waitUntil("the daemon's stream subscription") { !$0.openConnections.isEmpty && !($0.openConnections.last?.texts.isEmpty ?? true) }
        // Settle: a quote on both sides, nothing firing (mid 100.01 on Binance as on Bybit).
        server.push(Self.frame(update: 1, bid: "100.00", ask: "100.02"))
        try await Task.sleep(for: .milliseconds(500))
        sink.reset()
        for index in 0..<frames {
            let dear = index % 2 == 0
            let before = sink.count
            server.push(Self.frame(update: index + 2, bid: dear ? "102.00" : "100.00", ask: dear ? "102.02" : "100.02"))
            let deadline = ContinuousClock.now + .seconds(5)
            while sink.count == before {
                guard ContinuousClock.now < deadline else {
                    throw Failure(description: "no notification within 5 s of frame \(index + 1) (\(dear ? "fire" : "resolve"))")
                }
                try await Task.sleep(for: .microseconds(200))
            }
        }
        task.cancel()
        await task.value
        await server.shutdown()
        return Result(samples: Samples(sink.latencies), notifications: sink.count)
    }

    static func settings(streamURL: URL) -> Settings {
        var settings = Settings()
        var binance = ExchangeSettings(id: .binance, baseURL: URL(fileURLWithPath: "/"))
        binance.pollInterval = .seconds(3600)
        binance.streamURL = streamURL
        binance.staleAfter = .seconds(3600)
        var bybit = ExchangeSettings(id: .bybit, baseURL: URL(fileURLWithPath: "/"))
        bybit.pollInterval = .seconds(3600)
        bybit.streamEnabled = false
        settings.exchanges = [.binance: binance, .bybit: bybit]
        settings.premium.maxQuoteAge = .seconds(3600)
        settings.premium.rules = [
            PremiumRule(
                name: "latency", assets: ["BTC"], exchanges: [.binance, .bybit], quotes: ["USDT"], basis: .mid,
                levels: [AlertLevel(pct: 1, severity: .warning)], clearPct: 0.5),
        ]
        return settings
    }

    static func frame(update: Int, bid: String, ask: String) -> String {
        #"{"u":\#(update),"s":"BTCUSDT","b":"\#(bid)","B":"1.5","a":"\#(ask)","A":"2.5"}"#
    }

    static func quote(_ exchange: ExchangeID, market: String, bid: String, ask: String, at: Date, transport: QuoteTransport) -> Quote {
        Quote(exchange: exchange, market: market, base: "BTC", quote: "USDT", last: nil, bid: Price(bid), ask: Price(ask), receivedAt: at, transport: transport)
    }

    /// The stdout sink's own write loop, on `fd`.
    static func write(_ line: String, to fd: Int32) -> Bool {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}

/// The stdout sink, timed: after each write, now minus the receipt of the stream quote behind the event.
private final class TimedSink: AlertSink {
    let name = "stdout"
    private let inner: StdoutSink
    private let state = Mutex<[Double]>([])

    init(inner: StdoutSink) { self.inner = inner }

    func deliver(_ event: AlertEvent) async throws {
        try await inner.deliver(event)
        let written = Date()
        guard let premium = event.premium else { return }
        let streamed = [premium.high, premium.low].first { $0.transport == QuoteTransport.stream.rawValue }
        guard let received = streamed?.at else { return }
        state.withLock { $0.append(written.timeIntervalSince(received)) }
    }

    var count: Int { state.withLock { $0.count } }
    var latencies: [Double] { state.withLock { $0 } }
    func reset() { state.withLock { $0.removeAll() } }
}
