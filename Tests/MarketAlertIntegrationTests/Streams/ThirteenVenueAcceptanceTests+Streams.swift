import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

extension ThirteenVenueAcceptanceTests {
    /// Every exchange on its stream (REST every 5 s, paused while the streams are live): spikes pushed only on
    /// the streams — HTX's gzip frames, KuCoin's connection found through its bullet, Coinone's — fire both
    /// rules said to come by stream and clear within one poll interval, while no REST poll happens; each
    /// exchange's keepalive is kept on the live connections (Kraken's and Coinbase's heartbeats and Bitfinex's
    /// `hb` taken as such, every HTX ping answered with its pong, Binance's and Gate's WebSocket pings
    /// answered, and the client pings of Gate, KuCoin and Coinone sent in time), so none of the 13 connects
    /// twice.
    @Test func byStreamASpikeShorterThanAPollFiresBothRulesAndEveryKeepaliveHolds() async throws {
        let apis = try await MockMarketAPIs()
        let venues = try await MockVenues()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.setFX { $0.dunamuRate = Self.usdKRW }
        try Self.setBase(venues)
        try harness.writeConfig(Self.config(harness, venues, streaming: true))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        for id in Self.all {
            try await daemon.waitForLine("the \(id) stream live", stderr: true) { $0.contains("\(id.rawValue) stream live") }
        }
        let bullets = venues.rest.requests(to: KuCoinStream.bulletPath)
        #expect(!bullets.isEmpty && bullets.allSatisfy { $0.method == "POST" })
        #expect(venues.streams[.kucoin]?.connections.first?.uri == "/?token=\(MockVenues.kucoinToken)")
        let keepalives = venues.sendKeepalives(every: .seconds(2))
        defer { keepalives.cancel() }
        try Self.setBase(venues, push: true)
        let api = try await DaemonAPI.connect(to: daemon)
        try await Self.waitForQuotes(from: daemon, api, transport: "stream")
        let polls = Self.all.map(venues.polls)

        // HTX 0.25% up and KuCoin 0.15% down; Coinone 3.5% over Binance: on the streams only.
        let spike = ContinuousClock.now
        try venues.push(.htx, Self.usdt, "100250")
        try venues.push(.kucoin, Self.usdt, "99850")
        try venues.push(.coinone, Self.krw, "144865800")
        let global = try await Self.firing(daemon, "global")
        Self.check(global, dear: .htx, cheap: .kucoin, pct: Self.expectedPct(dear: "100250", cheap: "99850"), transport: "stream")
        let kimchi = try await Self.firing(daemon, "kimchi")
        Self.check(
            kimchi, dear: .coinone, cheap: .binance, pct: Self.expectedPct(dear: "144865800", cheap: Self.basePrice, dearInKRW: true),
            transport: "stream")
        try Self.setBase(venues, push: true)
        try await Self.resolved(daemon, "global")
        try await Self.resolved(daemon, "kimchi")
        let lasted = ContinuousClock.now - spike
        #expect(lasted < .seconds(5), "the spikes lasted \(lasted), not less than one poll interval")
        #expect(Self.all.map(venues.polls) == polls, "REST polled while the streams were live")

        // Keepalives on the live connections: the servers' heartbeats and pings all along (`sendKeepalives`),
        // every HTX ping answered with its pong; Gate's WebSocket ping answered; the daemon's own pings.
        let binance = try #require(venues.streams[.binance])
        try await binance.waitUntil("the pong to Binance's ping") {
            $0.connections.first?.received.contains(.pong(Data("binance-keepalive".utf8))) == true
        }
        let gate = try #require(venues.streams[.gate])
        gate.ping(Data("gate-keepalive".utf8))
        try await gate.waitUntil("the pong to Gate's ping") { $0.connections.first?.received.contains(.pong(Data("gate-keepalive".utf8))) == true }
        try await gate.waitUntil("the daemon's WebSocket ping to Gate", timeout: .seconds(25)) {
            $0.connections.first?.received.contains { if case .ping = $0 { true } else { false } } == true
        }
        let kucoin = try #require(venues.streams[.kucoin])
        try await kucoin.waitUntil("the daemon's ping to KuCoin", timeout: .seconds(25)) {
            $0.connections.first?.texts.contains(#"{"id":"marketalertd-ping","type":"ping"}"#) == true
        }
        let coinone = try #require(venues.streams[.coinone])
        try await coinone.waitUntil("the daemon's PING to Coinone", timeout: .seconds(25)) {
            $0.connections.first?.texts.contains(#"{"request_type":"PING"}"#) == true
        }
        let htx = try #require(venues.streams[.htx])
        let pings = venues.htxPings
        #expect(pings.count >= 5, "\(pings.count) HTX pings in the test")
        try await htx.waitUntil("a pong to each of HTX's \(pings.count) pings") { server in
            let texts = server.connections.first?.texts ?? []
            return pings.allSatisfy { texts.contains("{\"pong\":\($0)}") }
        }
        let metrics = try await api.metrics()
        for id in Self.all {
            #expect(venues.streams[id]?.connections.count == 1, "\(id) connected \(venues.streams[id]?.connections.count ?? 0) times")
            #expect(metrics.value("marketalertd_stream_connected", ["exchange": id.rawValue]) == 1, "\(id) stream not connected")
        }
        let bitfinexDrops = metrics.samples.filter { $0.name == "marketalertd_quotes_rejected_total" && $0.labels["exchange"] == "bitfinex" }
        #expect(bitfinexDrops.allSatisfy { $0.value == 0 }, "Bitfinex's hb was counted as a drop")
        #expect(!daemon.events.contains { $0.kind == .source })
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await venues.shutdown()
    }
}
