import Foundation

/// Everything `StreamConnectionStateMachine` needs to know about one exchange's stream.
package struct StreamConnectionConfiguration: Sendable, Equatable {
    package var keepalive: StreamKeepalive
    /// No market data for this long on a live connection (heartbeats do not count) → reconnect. Measured
    /// over the whole connection, so one quiet market among busy ones never triggers it.
    package var staleAfter: Duration
    /// Opening the connection (TCP, TLS, upgrade) must finish within this.
    package var connectTimeout: Duration
    /// Every subscription must be acknowledged within this after the handshake.
    package var ackTimeout: Duration
    package var reconnect: StreamReconnectPolicy
    /// The server closes connections at this age (Binance: 24 h); a replacement is opened `renewBefore`
    /// earlier and takes over once live, so no data is lost (make-before-break).
    package var lifetime: Duration?
    package var renewBefore: Duration
    /// Limit on client messages per connection (Binance: 5 per second, pongs included), or nil.
    package var outboundLimit: OutboundPacer?
    /// How many subscription messages to send after the handshake.
    package var subscribeMessages: Int
    /// Ack keys that must all arrive before the stream is live.
    package var expectedAcks: Set<String>
    /// The exchange never acknowledges (Upbit, Bithumb): the first market data frame proves the subscription.
    package var liveOnFirstData: Bool

    package init(
        keepalive: StreamKeepalive, staleAfter: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
        ackTimeout: Duration = .seconds(10), reconnect: StreamReconnectPolicy = StreamReconnectPolicy(),
        lifetime: Duration? = nil, renewBefore: Duration = .seconds(15 * 60), outboundLimit: OutboundPacer? = nil,
        subscribeMessages: Int, expectedAcks: Set<String>, liveOnFirstData: Bool = false
    ) {
        self.keepalive = keepalive
        self.staleAfter = staleAfter
        self.connectTimeout = connectTimeout
        self.ackTimeout = ackTimeout
        self.reconnect = reconnect
        self.lifetime = lifetime
        self.renewBefore = renewBefore
        self.outboundLimit = outboundLimit
        self.subscribeMessages = subscribeMessages
        self.expectedAcks = expectedAcks
        self.liveOnFirstData = liveOnFirstData
    }
}
