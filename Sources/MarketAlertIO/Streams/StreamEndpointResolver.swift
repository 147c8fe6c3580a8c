import AsyncHTTPClient
import Foundation
import MarketAlertCore
import MarketAlertKit
import NIOCore

/// Asks an exchange's REST API where a connection should go (`StreamEndpointRequest`, KuCoin's bullet):
/// a POST under the configured URL over the process's shared HTTP client, within the connect timeout,
/// before each connection. Its failures are the connection's (`connectFailed`: backoff, REST meanwhile).
struct StreamEndpointResolver: Sendable {
    let request: StreamEndpointRequest
    let timeout: Duration

    /// The resolver for a stream configured with `url`: only for an exchange that hands out endpoints and a
    /// URL of its REST API (`http`/`https`); a `ws`/`wss` URL is connected to as it is.
    init?(_ protocolDescription: some ExchangeStreamProtocol, url: URL, timeout: Duration) {
        guard let request = protocolDescription.endpointRequest, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        self.request = request
        self.timeout = timeout
    }

    /// Where to connect now.
    func resolve(_ base: URL) async throws(StreamEndpointError) -> StreamEndpoint {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        var post = HTTPClientRequest(url: text + request.path)
        post.method = .POST
        post.headers.add(name: "Accept", value: "application/json")
        post.headers.add(name: "User-Agent", value: "marketalertd/\(MarketAlertVersion.current)")
        let answer: (status: UInt, body: ByteBuffer)
        do {
            let limit = TimeAmount.milliseconds(Int64(timeout.seconds * 1000))
            answer = try await RequestDeadline.run(within: timeout) { [post] in
                let response = try await HTTPClient.shared.execute(post, timeout: limit)
                return (response.status.code, try await response.body.collect(upTo: 1 << 16))
            }
        } catch {
            throw StreamEndpointError("POST \(request.path): \(error)")
        }
        guard (200..<300).contains(answer.status) else { throw StreamEndpointError("POST \(request.path): HTTP \(answer.status)") }
        return try request.endpoint(Data(answer.body.readableBytesView))
    }
}
