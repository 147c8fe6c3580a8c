import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// One exchange's stream, described for the shared conformance tests: how to make the source, what the
/// test server's persona is, recorded frames and what they must decode to, bad frames, the keepalive.
struct StreamCase: Sendable, CustomStringConvertible {
    enum Frame: Sendable {
        case text(String)
        case binary(Data)
    }

    struct Expected: Sendable, Equatable, CustomStringConvertible {
        var bid: Decimal?
        var ask: Decimal?
        var last: Decimal?

        init(bid: String? = nil, ask: String? = nil, last: String? = nil) {
            self.bid = bid.flatMap { Decimal(string: $0) }
            self.ask = ask.flatMap { Decimal(string: $0) }
            self.last = last.flatMap { Decimal(string: $0) }
        }

        init(_ quote: Quote) {
            bid = quote.bid?.exact
            ask = quote.ask?.exact
            last = quote.last?.exact
        }

        var description: String { "bid \(bid.map { "\($0)" } ?? "-") ask \(ask.map { "\($0)" } ?? "-") last \(last.map { "\($0)" } ?? "-")" }
    }

    enum Keepalive: Sendable {
        /// The server pings (Binance); the client must pong with the payload and send no pings itself.
        case serverPings
        /// The client sends `ping` every `interval` (a message or a ping frame); the persona answers.
        case clientPings(WebSocketTestServer.Received, interval: Duration, window: Duration)
        /// The server pushes `heartbeat` frames; the transport is dead after `window` without any frame.
        case serverHeartbeats(Frame, window: Duration)
        /// The server sends its own ping message (HTX `{"ping":N}`), which the client must answer with `pong`
        /// text; the transport is dead after `window` without any frame.
        case serverMessagePings(Frame, pong: String, window: Duration)
    }

    var name: String
    var exchange: ExchangeID
    var path: String
    var pairs: Set<MarketPair>
    var makeSource: @Sendable (URL, ManualClock, StreamCounters, Duration) -> any StreamSource
    var persona: @Sendable (StreamPersonaKnobs) -> WebSocketTestServer.Persona
    /// Every topic the client must subscribe to, as `topics` reads them out of its messages.
    var expectedTopics: Set<String>
    var topics: @Sendable ([String]) -> Set<String>
    /// Recorded frames, pushed in order once the stream is live, and the last value of each market after them.
    var recorded: [Frame]
    var expected: [String: Expected]
    /// A frame with a known effect, pushed to show the stream still works.
    var fresh: Frame
    var freshMarket: String
    var freshExpected: Expected
    /// Frames this exchange could plausibly send that must be dropped, with the reason each is counted under.
    var bad: [(Frame, StreamDropReason)]
    var keepalive: Keepalive
    /// Whether the persona can acknowledge only part of a subscription (exchanges with one ack per request
    /// and one request cannot be partly acked).
    var partialAck = false
    /// The stream is live on its first data frame, which answers the subscription (no ack: Upbit, Bithumb).
    var liveOnFirstData = false
    /// A watched market the exchange's error names when it does not exist (nil: the exchange never says).
    var refusable: String? = nil

    var description: String { name }

    /// Frames from a fixture file, one JSON document per line.
    static func lines(_ path: String) -> [Frame] {
        let text = (try? Fixtures.string(path)) ?? ""
        return text.split(separator: "\n").filter { !$0.isEmpty }.map { .text(String($0)) }
    }

    static func source<P: ExchangeStreamProtocol>(_ protocolDescription: P) -> @Sendable (URL, ManualClock, StreamCounters, Duration) -> any StreamSource {
        { url, clock, counters, staleAfter in
            WebSocketStreamSource(
                protocol: protocolDescription, url: url, staleAfter: staleAfter, clock: clock, counters: counters,
                random: { 0.5 })
        }
    }

    static let all: [StreamCase] = [.binance, .okx, .bybit, .bitget, .upbit, .bithumb, .kraken, .coinbase, .coinone, .gate, .kucoin, .htx, .bitfinex]
}

extension WebSocketTestServer {
    func push(_ frame: StreamCase.Frame, to id: Int? = nil) {
        switch frame {
        case .text(let text): push(text, to: id)
        case .binary(let data): push(binary: data, to: id)
        }
    }
}
