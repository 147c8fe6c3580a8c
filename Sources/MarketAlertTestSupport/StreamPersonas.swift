import Foundation
import MarketAlertCore
import MarketAlertIO

/// How a test WebSocket server answers subscriptions: the exchange's own persona, from its wire kit
/// (`descriptor.wire.stream.persona`), read with the knobs as they are at each message.
package enum StreamPersonas {
    /// The persona of `exchange` (an exchange of `ExchangeRegistry.standard` with a stream).
    package static func of(_ exchange: ExchangeID) -> @Sendable (StreamPersonaKnobs) -> WebSocketTestServer.Persona {
        guard let peer = ExchangeRegistry.standard[exchange]?.wire.stream else {
            preconditionFailure("\(exchange) has no stream peer in the registry")
        }
        return persona(peer)
    }

    /// A server persona answering as `peer` does.
    package static func persona(_ peer: StreamPeer) -> @Sendable (StreamPersonaKnobs) -> WebSocketTestServer.Persona {
        { knobs in
            { text, _ in
                peer.persona(text, knobs.snapshot).map { reply in
                    switch reply {
                    case .text(let text): .text(text)
                    case .binary(let data): .binary(data)
                    }
                }
            }
        }
    }

    /// Parses a client message as a JSON object (nil for anything else).
    package static func object(_ text: String) -> [String: Any]? { WireJSON.object(text) }

    /// Parses a client message as a JSON array (nil for anything else).
    package static func array(_ text: String) -> [Any]? { WireJSON.array(text) }
}
