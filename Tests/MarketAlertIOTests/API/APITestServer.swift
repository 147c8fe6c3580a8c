import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import NIOCore
import NIOHTTP1
import Synchronization

/// The HTTP server of a `RuntimeHarness`'s runtime on 127.0.0.1 (port 0), and a client for it.
final class APITestServer: Sendable {
    let service: HTTPServerService
    let backend: APIBackend
    let liveness: EngineLiveness
    let metrics: DaemonMetrics
    private let task: Task<Void, Error>
    private let bound = Announcements()
    let client = HTTPClient(eventLoopGroupProvider: .singleton)

    /// Attaches liveness, metrics and the publisher hooks to `runtime` (before it runs: `RuntimeHarness.start(prepare:)`).
    static func prepare(_ runtime: DataPathService, liveness: EngineLiveness, metrics: DaemonMetrics, silences: (any SilenceStore)?) async {
        await runtime.loop.attach(EngineLoopObservers([liveness, metrics]))
        await runtime.publisher.attach(DaemonPublicationHooks(metrics: metrics, silences: silences, logger: logger))
    }

    static let logger = Logger(label: "api-test", factory: { _ in SwiftLogNoOpLogHandler() })

    init(
        runtime: DataPathService, clock: any DaemonClock, liveness: EngineLiveness, metrics: DaemonMetrics,
        http: HTTPSettings = HTTPSettings(host: "127.0.0.1", port: 0), silences: (any SilenceStore)? = nil, environment: [String: String] = [:],
        history: (any HistoryStore)? = nil
    ) async throws {
        let logger = Self.logger
        self.liveness = liveness
        self.metrics = metrics
        var backend = APIBackend(
            loop: runtime.loop, inbox: runtime.inbox, liveness: liveness, clock: clock, silences: silences, metrics: metrics,
            access: APIAccess(), startedAt: clock.now(), logger: logger)
        backend.history = history
        self.backend = backend
        let bound = bound
        service = HTTPServerService(
            settings: http, backend: backend, secrets: SecretResolver(environment: environment), logger: logger,
            onListening: { listen in bound.value.withLock { $0.append(listen) } })
        let service = service
        task = Task { try await service.run() }
        do {
            try await waitForListen(count: 1)
        } catch {
            // A server that did not come up fails its test, not the whole run: a client deallocated before its
            // shutdown is AsyncHTTPClient's fatal error (it took a loaded unit run down with it).
            await stop()
            throw error
        }
    }

    /// Every address announced so far (nil: stopped serving).
    var announced: [String?] { bound.value.withLock { $0 } }
    var baseURL: String { "http://" + (backend.access.listen ?? "127.0.0.1:1") }

    func waitForListen(count: Int) async throws {
        // Generous: on a loaded host (the unit suite beside CI's integration tests) a start took over 5 s.
        try await pollUntil("the HTTP server's listen announcement #\(count)", timeout: .seconds(20)) { announced.count >= count }
    }

    struct Answer {
        var status: Int
        var headers: [(String, String)]
        var body: Data
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func request(_ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = [], base: String? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: (base ?? baseURL) + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: .seconds(10))
        let buffer = try await response.body.collect(upTo: 8 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: Data(buffer: buffer))
    }

    func get(_ path: String) async throws -> Answer { try await request(.GET, path) }

    func stop() async {
        task.cancel()
        _ = await task.result
        try? await client.shutdown()
    }
}

/// A sink whose `deliver` blocks until released: a stuck stdout, for the liveness check.
final class BlockingSink: AlertSink {
    let name = "blocking"
    private let state = Mutex<(blocking: Bool, waiting: [CheckedContinuation<Void, Never>], entered: Int)>((true, [], 0))

    func deliver(_ event: AlertEvent) async throws {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> Bool in
                state.entered += 1
                guard state.blocking else { return true }
                state.waiting.append(continuation)
                return false
            }
            if resume { continuation.resume() }
        }
    }

    /// Deliveries begun so far (blocked or not).
    var entered: Int { state.withLock { $0.entered } }

    func release() {
        let waiting = state.withLock { state in
            state.blocking = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

final class Announcements: Sendable {
    let value = Mutex<[String?]>([])
}
