import Foundation
import MarketAlertCore

/// A stream whose WebSocket endpoint the exchange hands out over its REST API before each connection
/// (KuCoin's `POST /api/v1/bullet-public`: a server URL and a one-time token). The transport POSTs `path`
/// under the configured stream URL when that URL is the REST API's (`http`/`https`), and connects where
/// `endpoint` reads the answer to point; a `ws`/`wss` URL is connected to as it is. Every connection asks
/// again, so an expired token is replaced by reconnecting.
package struct StreamEndpointRequest: Sendable {
    /// The path POSTed under the configured URL (`/api/v1/bullet-public`).
    package var path: String
    /// Where an answer body says to connect (token and the like in the URL's query), or why it says nowhere.
    package var endpoint: @Sendable (_ body: Data) throws(StreamEndpointError) -> StreamEndpoint

    package init(path: String, endpoint: @escaping @Sendable (Data) throws(StreamEndpointError) -> StreamEndpoint) {
        self.path = path
        self.endpoint = endpoint
    }
}

/// Where one connection goes, as the exchange handed it out.
package struct StreamEndpoint: Sendable, Equatable {
    /// The WebSocket URL.
    package var url: URL
    /// The keepalive this server asks for (KuCoin's `pingInterval` and `pingTimeout`); nil: the protocol's.
    package var keepalive: StreamKeepalive?

    package init(url: URL, keepalive: StreamKeepalive? = nil) {
        self.url = url
        self.keepalive = keepalive
    }
}

/// Why no endpoint came out of the exchange's answer.
package struct StreamEndpointError: Error, Sendable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }
}
