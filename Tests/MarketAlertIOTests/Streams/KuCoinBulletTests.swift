import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// KuCoin's bullet: the answer read into a WebSocket URL, and the configuration that sends its stream to the
/// REST server that hands out endpoints.
@Suite struct KuCoinBulletTests {
    static func endpoint(_ body: String) throws(StreamEndpointError) -> StreamEndpoint {
        guard let request = KuCoinStream().endpointRequest else { throw StreamEndpointError("no endpoint request") }
        return try request.endpoint(Data(body.utf8))
    }

    @Test func theAnswerGivesTheFirstServerWithTheTokenInItsQuery() throws {
        // The shape of KuCoin's bullet answer (ccxt's `pro/kucoin.py` sample), token ending in `==`.
        let body = #"{"code":"200000","data":{"instanceServers":[{"pingInterval":18000,"endpoint":"wss://ws-api-spot.kucoin.com/","protocol":"websocket","encrypt":true,"pingTimeout":10000}],"token":"2neAiuYvAU61ZDXANAGAsiL4-iAExhsBXZxftpOeh_55i3Ysy2q2LEsEWU64mdzUOPusi34M_wGoSf7iNyEWJ1UQy47YbpY4zVdzilNP-Bj3iXzrjjGlWtiYB9J6i9GjsxUuhPw3BlrzazF6ghq4Lzf7scStOz3KkxjwpsOBCH4=.WNQmhZQeUKIkh97KYgU0Lg=="}}"#
        let endpoint = try Self.endpoint(body)
        let url = endpoint.url
        // Its server's keepalive: a ping every 15 s of its 18 s, given up after 25 s of 18 + 10 s.
        #expect(endpoint.keepalive == StreamKeepalive(ping: .message, interval: .seconds(15), window: .seconds(25)))
        #expect(url.absoluteString.hasPrefix("wss://ws-api-spot.kucoin.com/?token=2neAiuYvAU61"))
        #expect(url.query(percentEncoded: true)?.hasSuffix("CH4%3D.WNQmhZQeUKIkh97KYgU0Lg%3D%3D") == true)
        #expect(url.query(percentEncoded: false)?.hasSuffix("CH4=.WNQmhZQeUKIkh97KYgU0Lg==") == true)
    }

    /// The keepalive follows what each bullet's server says: a shorter interval is pinged sooner; an answer
    /// without one, or with an implausible one, leaves the protocol's 15 s and 25 s.
    @Test func theKeepaliveIsTheServersPingIntervalAndTimeout() throws {
        func bullet(_ server: String) -> String {
            #"{"code":"200000","data":{"instanceServers":[{"endpoint":"wss://ws-api-spot.kucoin.com/","protocol":"websocket",\#(server)}],"token":"abc"}}"#
        }
        #expect(try Self.endpoint(bullet(#""pingInterval":6000,"pingTimeout":4000"#)).keepalive
            == StreamKeepalive(ping: .message, interval: .seconds(5), window: .seconds(7)))
        #expect(try Self.endpoint(bullet(#""pingInterval":30000"#)).keepalive
            == StreamKeepalive(ping: .message, interval: .seconds(25), window: .seconds(37)))
        #expect(try Self.endpoint(bullet(#""encrypt":true"#)).keepalive == nil)
        #expect(try Self.endpoint(bullet(#""pingInterval":0,"pingTimeout":10000"#)).keepalive == nil)
        #expect(try Self.endpoint(bullet(#""pingInterval":86400000,"pingTimeout":10000"#)).keepalive == nil)
        #expect(KuCoinStream().keepalive == StreamKeepalive(ping: .message, interval: .seconds(15), window: .seconds(25)))
    }

    @Test func anAnswerWithoutAServerOrWithAnErrorCodeIsNoEndpoint() {
        let failures = [
            #"{"code":"400100","msg":"Too many requests"}"#,
            #"{"code":"200000","data":{"instanceServers":[],"token":"abc"}}"#,
            #"{"code":"200000","data":{"instanceServers":[{"endpoint":"https://not-a-websocket/"}],"token":"abc"}}"#,
            #"{"code":"200000","data":{"instanceServers":[{"endpoint":"wss://ws-api-spot.kucoin.com/"}],"token":""}}"#,
            "<html>502 Bad Gateway</html>",
        ]
        for body in failures {
            #expect(throws: StreamEndpointError.self, "\(body)") { try Self.endpoint(body) }
        }
    }

    @Test func aBaseURLOverrideCarriesTheStreamOnlyForKuCoin() throws {
        let settings = try ConfigLoader.parse(yaml: """
            exchanges:
              kucoin: { base_url: "http://127.0.0.1:9/" }
              gate: { base_url: "http://127.0.0.1:9/" }
              coinone: {}
            """).settings
        #expect(settings.exchanges[.kucoin]?.streamURL?.absoluteString == "http://127.0.0.1:9/")
        #expect(settings.exchanges[.gate]?.streamURL == nil)
        #expect(settings.exchanges[.coinone]?.streamURL?.absoluteString == "wss://stream.coinone.co.kr")
        let kucoin = try ConfigLoader.parse(yaml: "exchanges:\n  kucoin: {}\n").settings.exchanges[.kucoin]
        #expect(kucoin?.streamURL?.absoluteString == "https://api.kucoin.com")
    }
}

/// The keepalive of KuCoin's bullet on a real socket: a server that asks for a ping every 6 s is pinged every
/// 5 s of virtual time, and a connection quiet for its 7 s window is given up.
@Suite struct KuCoinBulletKeepaliveTests {
    @Test func theStreamPingsAtTheIntervalTheBulletGives() async throws {
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.kucoin)(StreamPersonaKnobs()))
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_750_000_000))
        let counters = StreamCounters()
        var source = KuCoinBulletSource(
            webSocket: server.url("/?token=\(StreamCase.kucoinToken)"), clock: clock, counters: counters, staleAfter: .seconds(3600))
        source.pingInterval = 6_000
        source.pingTimeout = 4_000
        let log = UpdateLog()
        let task = Task { [source] in await source.run(pairs: [MarketPair(base: "ETH", quote: "USDT")]) { log.append($0) } }
        defer { task.cancel() }
        try await pollUntil("live") { log.all.contains(.live) }
        @Sendable func pings() -> Int { server.connections.first?.texts.filter { $0.contains(#""type":"ping""#) }.count ?? 0 }

        // The driver's timer is set for the first ping 5 s after connecting (not the protocol's 15 s).
        let start = clock.now()
        try await clock.waitForSleeper(.stream("kucoin"), at: start.addingTimeInterval(5))
        #expect(pings() == 0)
        await clock.advance(by: .seconds(5))
        try await pollUntil("the first ping at 5 s") { pings() == 1 }
        // The persona answers it (read before time moves on: the window, 6 + 4 - 3 = 7 s, counts from it);
        // the next ping is due 5 s after the first.
        try await pollUntil("the pong read") { counters.snapshot.heartbeats >= 1 }
        try await clock.waitForSleeper(.stream("kucoin"), at: start.addingTimeInterval(10))
        await clock.advance(by: .seconds(5))
        try await pollUntil("the second ping at 10 s") { pings() == 2 }
        #expect(!log.all.contains { if case .down = $0 { true } else { false } })
        task.cancel()
        await task.value
        await server.shutdown()
    }
}
