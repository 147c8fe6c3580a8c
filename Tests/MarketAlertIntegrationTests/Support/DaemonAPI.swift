import AsyncHTTPClient
import Foundation
import MarketAlertTestSupport
import NIOCore
import NIOHTTP1

/// Talks to a running daemon's HTTP server (its address read from the "http: listening on" log line).
struct DaemonAPI {
    let base: String
    let client: HTTPClient

    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    /// Waits for the daemon to announce its address.
    static func connect(to daemon: DaemonProcess) async throws -> DaemonAPI {
        let line = try await daemon.waitForLine("the HTTP server to listen", stderr: true) { $0.contains("http: listening on ") }
        guard let range = line.range(of: "http: listening on ") else { throw CancellationError() }
        let listen = line[range.upperBound...].prefix { !$0.isWhitespace && $0 != "\"" && $0 != "," }
        return DaemonAPI(base: "http://\(listen)", client: .shared)  // the shared client needs no shutdown, so a failing test reports its own error, not a deinit trap
    }

    func request(_ method: HTTPMethod, _ path: String, json: String? = nil, token: String? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body))
    }

    func get(_ path: String) async throws -> Answer { try await request(.GET, path) }

    func metrics() async throws -> PrometheusText {
        let answer = try await get("/metrics")
        guard answer.status == 200 else { throw PrometheusText.ParseFailed(description: "/metrics answered \(answer.status)") }
        return try await PrometheusText.parse(answer.text)
    }

    /// Creates a silence; returns its id.
    func silence(_ body: String, token: String?) async throws -> String {
        let answer = try await request(.POST, "/api/v1/silences", json: body, token: token)
        guard answer.status == 201, let id = answer.json["id"] as? String else {
            throw PrometheusText.ParseFailed(description: "silence refused: \(answer.status) \(answer.text)")
        }
        return id
    }

    /// Nothing to release: the client is `HTTPClient.shared` (kept so call sites read as before).
    func shutdown() async {}
}
