import AsyncHTTPClient
import Foundation
import MarketAlertConfigReader
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import NIOCore
import NIOHTTP1

/// The CLI's HTTP client for the daemon's API: one request, its status and body; the bearer token is sent
/// on changes only and never printed.
package struct APIClient: Sendable {
    package let endpoint: APIEndpoint

    package struct Answer: Sendable {
        package var status: Int
        package var body: Data

        /// The API's `{"error": ...}` message, or the status.
        package var errorMessage: String {
            let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
            return (object?["error"] as? String) ?? "HTTP \(status)"
        }
    }

    package struct Unreachable: Error, CustomStringConvertible {
        package var description: String
    }

    package init(endpoint: APIEndpoint) { self.endpoint = endpoint }

    package func get(_ path: String) async throws -> Answer { try await send(.GET, path) }

    package func post(_ path: String, json: Data) async throws -> Answer { try await send(.POST, path, body: json) }

    package func delete(_ path: String) async throws -> Answer { try await send(.DELETE, path) }

    private func send(_ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> Answer {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3), read: .seconds(10))
        configuration.connectionPool.retryConnectionEstablishment = false  // a daemon that is down fails at once
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var request = HTTPClientRequest(url: endpoint.baseURL + path)
        request.method = method
        if method != .GET, let token = endpoint.token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let outcome: Result<Answer, Unreachable>
        do {
            let response = try await client.execute(request, timeout: .seconds(15))
            let bytes = try await response.body.collect(upTo: 32 << 20)
            outcome = .success(Answer(status: Int(response.status.code), body: Data(buffer: bytes)))
        } catch {
            outcome = .failure(Unreachable(description: "cannot reach marketalertd at \(endpoint.baseURL): \(error)"))
        }
        try? await client.shutdown()
        return try outcome.get()
    }
}
