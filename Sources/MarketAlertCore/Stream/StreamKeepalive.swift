/// How one exchange's stream proves its transport is alive, separately from whether market data is fresh.
///
/// Every frame from the server (data, pong, heartbeat, the server's own ping) shows the transport is alive;
/// when none arrives for `window`, the connection is dead even if the socket is open. Where the exchange
/// wants the client to ping (OKX and Bitget a text `ping`, Bybit `{"op":"ping"}`, Upbit and Bithumb a
/// WebSocket ping frame), one goes out every `interval`. Binance pings the client instead (every 20 s; a
/// pong must answer within a minute) and Kraken and Coinbase push heartbeats, so those send nothing.
package struct StreamKeepalive: Sendable, Equatable {
    package enum Ping: Sendable, Equatable {
        /// The client sends no keepalive of its own.
        case none
        /// A WebSocket ping control frame.
        case protocolFrame
        /// An application message (the exchange's own text, e.g. `ping` or `{"op":"ping"}`).
        case message
    }

    package var ping: Ping
    /// How often the client pings (ignored for `.none`).
    package var interval: Duration
    /// The longest quiet time (no frame of any kind) a live transport may have.
    package var window: Duration

    package init(ping: Ping, interval: Duration, window: Duration) {
        self.ping = ping
        self.interval = interval
        self.window = window
    }

    /// The server pings or pushes heartbeats; the client only answers.
    package static func serverDriven(window: Duration) -> StreamKeepalive {
        StreamKeepalive(ping: .none, interval: window, window: window)
    }

    /// The client pings every `interval`; a pong (or any other frame) must arrive within `window`.
    package static func clientPings(_ ping: Ping, every interval: Duration, window: Duration) -> StreamKeepalive {
        StreamKeepalive(ping: ping, interval: interval, window: window)
    }
}
