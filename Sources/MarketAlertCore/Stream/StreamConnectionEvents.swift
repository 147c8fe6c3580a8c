import Foundation

/// One WebSocket connection attempt of a stream. Events name the connection they come from, so an event
/// from a connection the state machine has already given up on is ignored.
package struct StreamLinkID: Hashable, Sendable, Comparable, CustomStringConvertible {
    package let raw: UInt64

    package init(_ raw: UInt64) { self.raw = raw }

    package static func < (lhs: StreamLinkID, rhs: StreamLinkID) -> Bool { lhs.raw < rhs.raw }
    package var description: String { "#\(raw)" }
}

/// What happened, as `StreamConnectionStateMachine` sees it.
package enum StreamConnectionEvent: Sendable, Equatable {
    /// Begin: open the first connection.
    case start
    /// The WebSocket handshake completed.
    case connected(StreamLinkID)
    /// Before the handshake: the keepalive this connection's endpoint asks for (KuCoin's bullet hands out a
    /// `pingInterval` and `pingTimeout` with each server), in place of the protocol's for this connection.
    case keepalive(StreamLinkID, StreamKeepalive)
    /// The connection could not be opened (refused, DNS, TLS, HTTP status instead of an upgrade).
    case connectFailed(StreamLinkID, reason: String)
    /// Subscription acknowledgements, by the protocol's ack keys. `complete` means this message is the
    /// exchange's whole answer (Coinbase's `subscriptions`): any expected key still missing is a partial ack.
    case acked(StreamLinkID, keys: [String], complete: Bool)
    /// An in-band error answer to a subscription (or any other in-band error the exchange sends).
    case rejected(StreamLinkID, reason: String)
    /// A frame that carried usable market data for a watched market.
    case data(StreamLinkID)
    /// A pong, heartbeat or status frame: the transport is alive; says nothing about market data.
    case heartbeat(StreamLinkID)
    /// A WebSocket ping from the server, to be answered with a pong carrying the same payload.
    case serverPing(StreamLinkID, payload: [UInt8])
    /// The server announced it will close the connection soon (Binance `serverShutdown`).
    case shutdownNotice(StreamLinkID)
    /// The connection closed (cleanly or not) or failed while open.
    case closed(StreamLinkID, reason: String)
    /// A timer fired (no other information; the machine checks everything due at `now`).
    case tick
    /// The exchange refused some markets on `id` (or markets are asked for again): the connection stays.
    /// `drop`: ack keys that will never come (the refused markets', or the whole refused message's);
    /// `messages`: subscription messages to send on it now (the refused message's other markets, or markets
    /// asked for again), whose acks `acks` a connection still subscribing must also see before it is live.
    case resubscribe(StreamLinkID, drop: Set<String>, messages: [String], acks: Set<String>)
    /// Nothing is left to stream: close every connection and open none until `.start`.
    case pause
}

/// A message the client sends on a connection.
package enum StreamOutbound: Sendable, Equatable {
    /// The subscription message with this index in the protocol's list.
    case subscribe(Int)
    /// The client keepalive (a ping frame or the exchange's ping text, per `StreamKeepalive.Ping`).
    case ping
    /// A WebSocket pong answering a server ping.
    case pong(payload: [UInt8])
    /// A subscription message given with `.resubscribe`.
    case message(String)
}

/// What the runner must do.
package enum StreamConnectionAction: Sendable, Equatable {
    /// Open a new WebSocket connection under this id.
    case connect(StreamLinkID)
    case send(StreamLinkID, StreamOutbound)
    /// Close this connection (cleanly if possible) and forget it.
    case close(StreamLinkID, reason: String)
    /// The stream became live: connected and every subscription acknowledged.
    case live
    /// The stream is not live (any more); REST should fill in.
    case down(reason: String)
}
