import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The built daemon watching 30 Bitfinex markets, against a local server speaking Bitfinex's protocol that
/// refuses a connection's 26th channel (`10305 subscribe: limit`, as Bitfinex caps a connection at 25): the
/// daemon opens two connections, every market is streamed (none refused, none left to REST), and a spike on
/// a market of the second connection alerts by stream.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct ShardedStreamIntegrationTests {
    static let assets = (0..<30).map { index -> String in
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return "Q\(letters[index / 26])\(letters[index % 26])"
    }

    static func config(_ harness: DaemonHarness, bitfinex: URL) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              bitfinex: { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(bitfinex.absoluteString)", stale_after: 60s }
              htx:      { poll_interval: 1s, timeout: 2s, base_url: "\(base)", stream: false }
            premium:
              max_quote_age: 60s
              rules:
                - name: wide
                  assets: [\(assets.joined(separator: ", "))]
                  exchanges: [bitfinex, htx]
                  quotes: [USDT]
                  levels:
                    - { pct: 0.05, severity: notice }
                  clear_pct: 0.04
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            """
    }

    /// Serves `exchange`'s REST tickers from its wire kit: every asset against USDT at 100.
    static func serveREST(_ apis: MockMarketAPIs, _ exchange: ExchangeID, path: String) throws {
        let descriptor = try #require(ExchangeRegistry.standard[exchange])
        let rows = assets.map { asset -> (id: String, row: WireRow) in
            let millis = Int64(Date().timeIntervalSince1970 * 1000)
            let row = WireRow(
                base: asset, quote: "USDT", last: "100", bid: "100", ask: "100", open: "100", high: "100", low: "100",
                volume: "1", quoteVolume: "100", timeMillis: millis)
            return (id: descriptor.marketID(row.pair), row: row)
        }
        apis.server.route(path) { request in
            let book = WirePeerBook(live: { rows }, row: { id in rows.first { $0.id == id }?.row })
            let nowMillis = Int64(Date().timeIntervalSince1970 * 1000)
            guard let answer = descriptor.wire.rest.answer(WireRequest(path: request.path, query: request.query, nowMillis: nowMillis), book)
            else { return .json("[]", status: 404) }
            return MockHTTPServer.Response(status: answer.status, headers: answer.headers, body: Data(answer.body.utf8))
        }
    }

    @Test func thirtyBitfinexMarketsGoOverTwoConnectionsAndAllStream() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try Self.serveREST(apis, .bitfinex, path: "/v2/tickers")
        try Self.serveREST(apis, .htx, path: "/market/tickers")
        let persona = StreamPersonas.of(.bitfinex)(StreamPersonaKnobs())
        let counts = Mutex<[Int: Int]>([:])
        let bitfinex = try await WebSocketTestServer { text, connection in
            guard StreamPersonas.object(text)?["event"] as? String == "subscribe" else { return persona(text, connection) }
            let count = counts.withLock { counts in
                counts[connection, default: 0] += 1
                return counts[connection, default: 0]
            }
            guard count > 25 else { return persona(text, connection) }
            let symbol = StreamPersonas.object(text)?["symbol"] as? String ?? ""
            return [.text(#"{"event":"error","msg":"subscribe: limit","code":10305,"channel":"ticker","symbol":"\#(symbol)"}"#)]
        }
        try harness.writeConfig(Self.config(harness, bitfinex: bitfinex.url("/ws/2")))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        _ = try await daemon.waitForLine("the Bitfinex stream live", stderr: true) { $0.contains("bitfinex stream live") }
        try await bitfinex.waitUntil("two connections") { $0.openConnections.count == 2 }

        let subscribed = bitfinex.connections.map { BitfinexTopics.symbols($0.texts) }
        #expect(subscribed.map(\.count) == [15, 15])
        #expect(subscribed.reduce(Set<String>()) { $0.union($1) }.count == 30)
        #expect(!daemon.stderrLines.contains { $0.contains("refused") })
        // Each connection's "stream live" says which of the two it is.
        for connection in ["1/2", "2/2"] {
            _ = try await daemon.waitForLine("connection \(connection) live", stderr: true) {
                $0.contains("stream live") && $0.contains("connection=\(connection)")
            }
        }

        // A spike on a market of the second connection, on the channel number its answer gave.
        let market = try #require(subscribed.last?.sorted().first)
        let channel = BitfinexWire.channel(market)
        bitfinex.push("[\(channel),[110,1.5,110,2.25,0,0,110,10,111,99]]", to: bitfinex.connections.last?.id)
        let firing = try await daemon.waitForEvent("the spike") { $0.status == "firing" && $0.premium?.high.exchange == "bitfinex" }
        #expect(firing.premium?.high.transport == "stream")
        #expect(firing.key.hasSuffix("/" + market.dropFirst().dropLast(3)))
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await bitfinex.shutdown()
    }
}

/// The symbols of Bitfinex `ticker` subscribe requests.
private enum BitfinexTopics {
    static func symbols(_ texts: [String]) -> Set<String> {
        Set(texts.compactMap { text in
            guard let object = StreamPersonas.object(text), object["event"] as? String == "subscribe" else { return nil }
            return object["symbol"] as? String
        })
    }
}
