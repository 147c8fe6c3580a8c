import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// A webhook receiver on 127.0.0.1: answers from a script (then a fallback) and reports each request as it
/// arrives, so tests wait on arrivals instead of sleeping.
final class WebhookReceiver: Sendable {
    typealias Response = MockHTTPServer.Response

    /// The answers to give, in order, then the fallback for every later request.
    private final class Script: Sendable {
        private let state: Mutex<(queue: [Response], fallback: Response)>

        init(fallback: Response) { state = Mutex((queue: [], fallback: fallback)) }

        func set(_ responses: [Response], then fallback: Response) { state.withLock { $0 = (responses, fallback) } }

        func next() -> Response {
            state.withLock { $0.queue.isEmpty ? $0.fallback : $0.queue.removeFirst() }
        }
    }

    let server: MockHTTPServer
    let path: String
    private let responses: Script
    let arrivals: AsyncStream<MockHTTPServer.Request>

    init(path: String = "/hook", fallback: Response = .json("{}")) async throws {
        server = try await MockHTTPServer()
        self.path = path
        let responses = Script(fallback: fallback)
        self.responses = responses
        let (stream, continuation) = AsyncStream.makeStream(of: MockHTTPServer.Request.self)
        arrivals = stream
        server.route(path) { request in
            let response = responses.next()
            continuation.yield(request)
            return response
        }
    }

    var url: URL { URL(string: "\(server.baseURL.absoluteString)\(path)")! }  // a literal host and path

    /// Answers the next requests with `responses`, in order, then with `fallback`.
    func script(_ responses: [Response], then fallback: Response) {
        self.responses.set(responses, then: fallback)
    }

    var requests: [MockHTTPServer.Request] { server.requests(to: path) }
}

extension MockHTTPServer.Response {
    /// An empty answer with `status`.
    static func status(_ status: Int, headers: [(String, String)] = [], delay: Duration = .zero) -> Self {
        Self(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(), delay: delay)
    }
}

/// Collects `WebhookDeliveryReport`s as a stream (the outbox's `onReport`).
final class ReportStream: Sendable {
    let stream: AsyncStream<WebhookDeliveryReport>
    let continuation: AsyncStream<WebhookDeliveryReport>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream(of: WebhookDeliveryReport.self) }

    var callback: @Sendable (WebhookDeliveryReport) -> Void {
        let continuation = continuation
        return { continuation.yield($0) }
    }
}

/// Records log lines for assertions (level, message, metadata).
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]

        var text: String { "\(message) \(metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))" }
    }

    private let entries = Mutex<[Entry]>([])

    var all: [Entry] { entries.withLock { $0 } }

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    func logger(label: String = "webhooks-test") -> Logger {
        var logger = Logger(label: label) { _ in RecordingLogHandler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }
}

struct RecordingLogHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        recorder.append(
            LogRecorder.Entry(
                level: event.level, message: event.message.description,
                metadata: merged.mapValues { "\($0)" }))
    }
}


/// Events that satisfy `alert-event.schema.json`, one per kind.
enum SampleEvents {
    static let at = Date(timeIntervalSince1970: 1_773_110_820)  // 2026-03-10T02:47:00Z

    static func premium(id: String = EventID.make(), summary: String = "BTC premium 0.123% >= 0.1%: upbit over binance") -> AlertEvent {
        let fx = FXDetail(pair: "USD/KRW", rate: Decimal(string: "1466.5")!, provider: "dunamu", at: at)
        let high = QuoteDetail(
            exchange: "upbit", market: "KRW-BTC", price: Decimal(string: "139500000")!, quote: "KRW",
            priceRef: Decimal(string: "95123.45")!, side: "last", at: at)
        let low = QuoteDetail(
            exchange: "binance", market: "BTCUSDT", price: Decimal(string: "95006.7")!, quote: "USDT",
            priceRef: Decimal(string: "95006.7")!, side: "last", at: at)
        return AlertEvent(
            id: id, key: "premium/global/BTC", kind: .premium, status: AlertEvent.Status.firing, severity: .warning, at: at,
            summary: summary,
            premium: PremiumDetail(
                rule: "global", asset: "BTC", pct: 0.123, thresholdPct: 0.1, basis: .last, reference: "USD", high: high,
                low: low, fx: [fx]))
    }

    static func ipo(id: String = EventID.make()) -> AlertEvent {
        AlertEvent(
            id: id, key: "ipo/twse/7795/2026-03-10", kind: .ipo, status: "open", severity: .notice, at: at,
            summary: "7795 長廣 subscription open until 2026-03-12",
            ipo: IPODetail(
                source: "twse", code: "7795", name: "長廣", market: "初上櫃", state: .open, previousState: .upcoming,
                subscriptionStart: "2026-03-10", subscriptionEnd: "2026-03-12", lotteryDate: "2026-03-16",
                listingDate: nil, price: Decimal(string: "48.5"), shares: 3_200_000, timeZone: "Asia/Taipei"))
    }

    static func fx(id: String = EventID.make()) -> AlertEvent {
        AlertEvent(
            id: id, key: "fx/USD-KRW", kind: .fx, status: AlertEvent.Status.firing, severity: .info, at: at,
            summary: "USD/KRW moved 1.2% to 1466.5",
            fx: FXDetail(pair: "USD/KRW", rate: Decimal(string: "1466.5")!, provider: "dunamu", at: at, changePct: 1.2))
    }

    static func source(id: String = EventID.make()) -> AlertEvent {
        AlertEvent(
            id: id, key: "source/binance", kind: .source, status: AlertEvent.Status.firing, severity: .critical, at: at,
            summary: "binance failing: HTTP 503 (3 polls)",
            source: SourceDetail(name: "binance", error: "HTTP 503", lastSuccess: at.addingTimeInterval(-300), consecutiveFailures: 3))
    }
}

/// Runs `python3` (from PATH) on a script; the independent checker for the schema (signatures:
/// `WebhookSignatureCheck`).
enum Python {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ script: String, arguments: [String] = [], stdin: Data = Data()) async throws -> Output {
        // Through CommandRunner: no blocking wait on a concurrency thread, no pipe that can fill up.
        let result = try await CommandRunner.run(["/usr/bin/env", "python3", "-c", script] + arguments, stdin: stdin)
        return Output(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// Validates a JSON document against the event schema (Draft 2020-12, with format checks where the
    /// installed jsonschema supports them). Exit 0 when valid; the errors are printed otherwise.
    static func validateEvent(_ body: Data) async throws -> Output {
        let script = """
            import sys, json, jsonschema
            with open(sys.argv[1]) as f:
                schema = json.load(f)
            jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
            instance = json.loads(sys.stdin.buffer.read())
            errors = sorted(validator.iter_errors(instance), key=lambda e: str(list(e.path)))
            for error in errors:
                print(list(error.path), error.message)
            sys.exit(1 if errors else 0)
            """
        return try await run(script, arguments: [Fixtures.url("spec/alert-event.schema.json").path], stdin: body)
    }
}

/// A fresh directory under the system temp dir, for a file-backed `SQLiteStore`; the caller removes it.
func makeTemporaryDirectory() throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}

/// Everything a webhook outbox test needs: a receiver, a manual clock, a store, a client, logs and reports.
struct OutboxHarness {
    let receiver: WebhookReceiver
    let clock: ManualClock
    let store: SQLiteStore
    let client: HTTPClient
    let logs = LogRecorder()
    let reports = ReportStream()

    init(store: SQLiteStore? = nil) async throws {
        receiver = try await WebhookReceiver()
        clock = ManualClock(now: SampleEvents.at.addingTimeInterval(60))
        self.store = try store ?? SQLiteStore(inMemory: ())
        client = WebhookHTTPClient.make()  // as the daemon: redirects are never followed
    }

    func target(
        name: String = "ops", format: WebhookFormat = .json, key: WebhookSigningKey? = nil, timeout: Duration = .seconds(5),
        maxAge: Duration = .seconds(3600), kinds: Set<AlertKind> = Set(AlertKind.allCases), chatID: String? = nil
    ) -> WebhookTarget {
        WebhookTarget(
            name: name, url: receiver.url, format: format, signingKey: key, timeout: timeout, maxAge: maxAge, kinds: kinds,
            chatID: chatID)
    }

    /// An outbox whose jitter is zero (random 0.5), so backoff deadlines are exact.
    func outbox(_ targets: [WebhookTarget], store: SQLiteStore? = nil) -> WebhookOutbox {
        WebhookOutbox(
            store: store ?? self.store, targets: targets, client: client, clock: clock, logger: logs.logger(),
            random: { 0.5 }, onReport: reports.callback)
    }

    func shutdown() async {
        try? await client.shutdown()
        await receiver.server.shutdown()
    }
}

extension AsyncStream.Iterator {
    /// The next element, failing the test (instead of returning nil) when the stream ended.
    mutating func expectNext(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Element {
        try #require(await next(), "stream ended", sourceLocation: sourceLocation)
    }
}
