import Foundation
import MarketAlertCore

/// Everything a peer of an exchange needs to speak its protocol, built from the exchange's recorded shapes:
/// its REST answers, its stream's ticker frames and subscription answers, and the fixtures its tests and
/// fuzz seeds read. The daemon never uses it; the bench's mock exchanges, the test servers' personas, the
/// fuzz targets and the kit round-trip test do, for every exchange of `ExchangeRegistry.standard`. Each
/// exchange's folder defines its own (`<Name>Wire.swift`), reached as `descriptor.wire`.
package struct ExchangeWireKit: Sendable {
    /// The quote currency of the exchange's home markets (KRW on the Korean exchanges, else USDT).
    package var homeQuote: String
    /// The quote currency of the markets in its recorded fixtures (what the fuzz targets watch).
    package var recordedQuote: String
    package var rest: RESTPeer
    /// Nil for an exchange without a stream adapter.
    package var stream: StreamPeer?
    package var fixtures: WireFixtures

    package init(homeQuote: String, recordedQuote: String, rest: RESTPeer, stream: StreamPeer?, fixtures: WireFixtures) {
        self.homeQuote = homeQuote
        self.recordedQuote = recordedQuote
        self.rest = rest
        self.stream = stream
        self.fixtures = fixtures
    }
}

/// Where an exchange's recorded payloads live, relative to `Tests/Fixtures`.
package struct WireFixtures: Sendable {
    /// The folder of recorded REST answers (`binance`); every `*.json` in it seeds the REST fuzz target.
    package var rest: String
    /// The folder of recorded stream frames, one per line (`streams/binance`); seeds the stream fuzz target.
    package var stream: String?

    package init(rest: String, stream: String?) {
        self.rest = rest
        self.stream = stream
    }
}

/// One recorded JSON text a peer's template was taken from, to check the template against its fixture.
package struct RecordedShape: Sendable {
    /// Relative to `Tests/Fixtures`.
    package var fixture: String
    /// The template's text, as it appears in the fixture (whitespace aside).
    package var text: String

    package init(fixture: String, text: String) {
        self.fixture = fixture
        self.text = text
    }
}

/// An exchange's REST side as a peer: the requests its source makes and the answers the exchange gives.
package struct RESTPeer: Sendable {
    /// The paths the REST source requests (a path ending in `*` stands for every path that begins with the rest).
    package var paths: [String]
    /// The recorded texts its answers are rendered from.
    package var shapes: [RecordedShape]
    /// A complete ticker answer for `rows`, as if each had been asked for (a one-product exchange: the first).
    package var body: @Sendable (_ rows: [WireRow], _ nowMillis: Int64) -> String
    /// Answers one request the way the exchange does, refusals included, from `book`; nil: not its path.
    package var answer: @Sendable (_ request: WireRequest, _ book: WirePeerBook) -> WireResponse?
    /// Whether a request of this exchange is the first of a poll (for counting polls); nil: not its path.
    package var startsPoll: @Sendable (_ request: WireRequest, _ book: WirePeerBook) -> Bool?

    package init(
        paths: [String], shapes: [RecordedShape], body: @escaping @Sendable ([WireRow], Int64) -> String,
        answer: @escaping @Sendable (WireRequest, WirePeerBook) -> WireResponse?,
        startsPoll: (@Sendable (WireRequest, WirePeerBook) -> Bool?)? = nil
    ) {
        self.paths = paths
        self.shapes = shapes
        self.body = body
        self.answer = answer
        self.startsPoll = startsPoll ?? { request, _ in Self.claims(paths, request.path) ? true : nil }
    }

    /// Whether `path` is one of `paths` (or begins as one ending in `*` does).
    package static func claims(_ paths: [String], _ path: String) -> Bool {
        paths.contains { $0.hasSuffix("*") ? path.hasPrefix($0.dropLast()) : path == $0 }
    }
}

/// An exchange's stream side as a peer: its ticker frames and how its server answers a client.
package struct StreamPeer: Sendable {
    /// The WebSocket path of the public endpoint (`/ws`, `/v5/public/spot`).
    package var path: String
    /// Whether the server sends market data as binary frames (Upbit).
    package var binary: Bool
    /// One ticker frame for `row` under the exchange's `marketID`; `sequence` numbers it where the exchange
    /// does, `nowMillis` is the exchange's event time. Only last, bid and ask vary; the rest is recorded.
    package var tickerFrame: @Sendable (_ row: WireRow, _ marketID: String, _ sequence: Int, _ nowMillis: Int64) -> String
    /// Answers one client text message (subscribe, ping, anything else) as the exchange's server does.
    package var persona: @Sendable (_ text: String, _ knobs: PersonaKnobs) -> [WireReply]
    /// A frame's text as the server puts it on the wire (default: a text frame, or its bytes in a binary
    /// frame when `binary`; HTX: gzip-compressed in a binary frame).
    package var encode: @Sendable (_ text: String) -> WireReply

    package init(
        path: String, binary: Bool = false,
        tickerFrame: @escaping @Sendable (WireRow, String, Int, Int64) -> String,
        persona: @escaping @Sendable (String, PersonaKnobs) -> [WireReply],
        encode: (@Sendable (String) -> WireReply)? = nil
    ) {
        self.path = path
        self.binary = binary
        self.tickerFrame = tickerFrame
        self.persona = persona
        self.encode = encode ?? { binary ? .binary(Data($0.utf8)) : .text($0) }
    }
}

/// What a persona does with subscriptions: it checks each request has the exchange's documented shape (a
/// wrong one gets the exchange's in-band error), then answers as `mode` says.
package struct PersonaKnobs: Sendable, Equatable {
    package enum Mode: Sendable, Equatable {
        /// Ack every subscription.
        case ack
        /// Answer every subscription with the exchange's in-band error.
        case reject
        /// Ack only the first market of each request (a partial ack).
        case partial
        /// Never answer subscriptions.
        case silent
    }

    package var mode: Mode
    /// Whether text pings get the exchange's pong.
    package var answerPings: Bool
    /// Markets (exchange ids) the exchange says do not exist, with its own error; the rest is acked.
    package var refused: Set<String>

    package init(mode: Mode = .ack, answerPings: Bool = true, refused: Set<String> = []) {
        self.mode = mode
        self.answerPings = answerPings
        self.refused = refused
    }
}

/// One message a peer's server sends.
package enum WireReply: Sendable, Equatable {
    case text(String)
    case binary(Data)
}
