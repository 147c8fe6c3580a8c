import Foundation
import MarketAlertTestSupport
import Synchronization

/// A webhook receiver route on a mock server: answers every POST with the current answer (which the test
/// switches, e.g. from 503 to 200) and logs each request with the status it was given.
final class MockWebhookReceiver: Sendable {
    struct Delivery: Sendable {
        var request: MockHTTPServer.Request
        /// The status this request was answered with (after `delay`, if any).
        var status: Int
        var arrivedAt: ContinuousClock.Instant

        var webhookID: String? { request.header("webhook-id") }
    }

    private struct State {
        var answer: MockHTTPServer.Response
        var deliveries: [Delivery] = []
    }

    let path: String
    private let baseURL: URL
    private let state: Mutex<State>

    init(on server: MockHTTPServer, path: String = "/hook", answer: MockHTTPServer.Response) {
        self.path = path
        self.baseURL = server.baseURL
        self.state = Mutex(State(answer: answer))
        server.route(path) { [weak self] request in
            guard let self else { return .json("{}", status: 410) }
            return self.state.withLock { state in
                state.deliveries.append(Delivery(request: request, status: state.answer.status, arrivedAt: .now))
                return state.answer
            }
        }
    }

    var url: String { baseURL.absoluteString + path }

    /// Answer the next requests with `response`.
    func answer(_ response: MockHTTPServer.Response) { state.withLock { $0.answer = response } }

    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    /// The `webhook-id`s of requests answered with a 2xx, in arrival order.
    var acceptedIDs: [String] {
        deliveries.filter { (200..<300).contains($0.status) }.compactMap(\.webhookID)
    }
}

extension MockHTTPServer.Response {
    /// An empty answer with `status`, after `delay`.
    static func status(_ status: Int, delay: Duration = .zero) -> Self {
        Self(status: status, headers: [("Content-Type", "application/json")], body: Data("{}".utf8), delay: delay)
    }
}
