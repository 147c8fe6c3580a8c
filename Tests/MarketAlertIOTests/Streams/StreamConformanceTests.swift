import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Every exchange's stream against a real WebSocket server on 127.0.0.1 speaking that exchange's protocol,
/// with virtual time for the source's timers.
@Suite struct StreamConformanceTests {
    typealias Expected = StreamCase.Expected

    @Test(arguments: StreamCase.all)
    func subscribesOnOneConnectionAndDecodesRecordedFrames(_ c: StreamCase) async throws {
        try await withStream(c) { h in
            try await h.waitLive()
            let connection = try #require(h.server.connections.first)
            #expect(h.server.connections.count == 1)
            #expect(connection.header("Origin") == nil)
            #expect(connection.header("Sec-WebSocket-Extensions") == nil)
            #expect(connection.uri == c.path)
            #expect(c.topics(connection.texts) == c.expectedTopics)

            let before = h.counters.snapshot.frames
            for frame in c.recorded { h.server.push(frame) }
            try await h.waitFor("every recorded frame decoded") { h in
                h.counters.snapshot.frames >= before + c.recorded.count
                    && c.expected.allSatisfy { market, expected in h.latest(market).map(Expected.init) == expected }
            }
            for quote in h.quotes {
                #expect(quote.transport == .stream)
                #expect(quote.exchange == c.exchange)
                #expect(c.pairs.contains(MarketPair(base: quote.base, quote: quote.quote)))
                #expect(quote.receivedAt == StreamTestHarness.start)
            }
            #expect(h.counters.snapshot.droppedTotal == 0)
            #expect(h.downs.isEmpty)
        }
    }

    @Test(arguments: StreamCase.all)
    func reconnectsAndResubscribesAfterAnAbruptClose(_ c: StreamCase) async throws {
        try await withStream(c) { h in
            try await h.waitLive()
            h.server.closeAbruptly()
            try await expectReconnect(c, h)
        }
    }

    @Test(arguments: StreamCase.all)
    func reconnectsAndResubscribesAfterACleanClose(_ c: StreamCase) async throws {
        try await withStream(c) { h in
            try await h.waitLive()
            h.server.closeCleanly(code: 1001)
            try await h.waitDown()
            #expect(h.downs[0].contains("closed by the server (code 1001)"))
            try await expectReconnect(c, h)
        }
    }

    /// After the first connection went away: down, a reconnect 1 s later (backoff, no jitter in tests), the
    /// same subscriptions again, live again, and quotes flow.
    private func expectReconnect(_ c: StreamCase, _ h: StreamTestHarness) async throws {
        try await h.waitDown()
        #expect(h.downs[0].hasSuffix("reconnecting in 1s"))
        try await h.settle()
        #expect(h.server.connections.count == 1)
        try await h.advance(by: .seconds(1))
        try await h.waitFor("a second connection, subscribed again") { h in
            h.server.connections.count == 2 && c.topics(h.server.connections[1].texts) == c.expectedTopics
        }
        try await h.waitLive(count: 2)
        h.server.push(c.fresh)
        try await h.waitFor("a quote on the new connection") { $0.latest(c.freshMarket).map(Expected.init) == c.freshExpected }
        #expect(h.downs.count == 1)
    }

    @Test(arguments: StreamCase.all)
    func aSilentButAliveStreamGoesStaleAndComesBack(_ c: StreamCase) async throws {
        try await withStream(c) { h in
            try await h.waitLive()
            h.server.push(c.fresh)
            try await h.waitFor("the fresh quote") { $0.latest(c.freshMarket).map(Expected.init) == c.freshExpected }
            // 29 s with the transport kept alive (pongs, heartbeats) but no market data.
            try await keepTransportAlive(c, h, for: .seconds(29))
            try await h.settle()
            #expect(h.downs.isEmpty)
            try await keepTransportAlive(c, h, for: .seconds(1))
            try await h.waitDown()
            #expect(h.downs[0] == "stale: no market data for 30s; reconnecting in 1s")
            try await h.advance(by: .seconds(1))
            try await h.waitLive(count: 2)
            #expect(h.server.connections.count == 2)
            #expect(h.server.connections[0].isOpen == false)
        }
    }

    /// Advances virtual time second by second while the server keeps the transport alive its own way.
    private func keepTransportAlive(_ c: StreamCase, _ h: StreamTestHarness, for duration: Duration) async throws {
        var elapsed = Duration.zero
        while elapsed < duration {
            switch c.keepalive {
            case .serverPings:
                let pongs = h.server.connections.last?.received.filter { if case .pong = $0 { true } else { false } }.count ?? 0
                h.server.ping(Data([0x70]))
                try await h.server.waitUntil("a pong") { server in
                    (server.connections.last?.received.filter { if case .pong = $0 { true } else { false } }.count ?? 0) > pongs
                }
            case .serverHeartbeats(let frame, _):
                let heartbeats = h.counters.snapshot.heartbeats
                h.server.push(frame)
                try await h.waitFor("a heartbeat") { $0.counters.snapshot.heartbeats > heartbeats }
            case .serverMessagePings(let ping, let pong, _):
                let pongs = h.server.connections.last?.texts.filter { $0 == pong }.count ?? 0
                h.server.push(ping)
                try await h.server.waitUntil("a pong") { server in
                    (server.connections.last?.texts.filter { $0 == pong }.count ?? 0) > pongs
                }
            case .clientPings:
                // The persona answers the client's pings; the answer must be read before the next virtual
                // second's keepalive check, so give each second more real time than the default step (2 ms
                // was too little on two loaded cores: run 11 of the 30-run). Not a named wait yet: the
                // transport does not count protocol-level pongs (see README "Known limitations").
                try await Task.sleep(for: .milliseconds(25))
            }
            try await h.advance(by: .seconds(1))
            elapsed += .seconds(1)
        }
    }

    @Test(arguments: StreamCase.all)
    func badFramesAreDroppedAndCountedAndTheStreamGoesOn(_ c: StreamCase) async throws {
        try await withStream(c) { h in
            try await h.waitLive()
            let before = h.counters.snapshot
            let quotesBefore = h.quotes.count
            let generic: [(StreamCase.Frame, StreamDropReason)] = [
                (.text("not json at all"), .malformed),
                (.text(""), .malformed),
                (.binary(Data([0xFF, 0x00, 0x13, 0x37])), .malformed),
                (.text(#"{"unterminated"#), .malformed),
                // A message over the decode limit now closes the connection, refused from its header
                // (issue #26 item 13): `StreamAbuseTests`.
            ]
            let all = c.bad + generic
            for (frame, _) in all { h.server.push(frame) }
            h.server.push(c.fresh)
            try await h.waitFor("the fresh quote after the bad frames") { $0.latest(c.freshMarket).map(Expected.init) == c.freshExpected }
            let after = h.counters.snapshot
            for reason in StreamDropReason.allCases {
                let expected = all.filter { $0.1 == reason }.count
                #expect((after.dropped[reason] ?? 0) - (before.dropped[reason] ?? 0) == expected, "\(reason)")
            }
            // The only quote since is the fresh one: nothing came out of a bad frame.
            let new = h.quotes.dropFirst(quotesBefore)
            #expect(new.map(\.market) == [c.freshMarket])
            #expect(h.downs.isEmpty)
            #expect(h.server.connections.count == 1)
        }
    }

    @Test(arguments: StreamCase.all)
    func anErrorAnswerToTheSubscriptionIsDownThenRetried(_ c: StreamCase) async throws {
        try await withStream(c, mode: .reject) { h in
            // OKX, Bitget, Bybit and Coinbase answer (in the personas' reject mode) that the market does not
            // exist; Kraken's reject is a rate limit, Binance's and Upbit's name no market.
            if [ExchangeID.okx, .bitget, .bybit, .coinbase, .bitfinex].contains(c.exchange) {
                // This exchange's error says the markets do not exist: each is held out (REST covers it) and
                // asked for again a minute later (issue #26 item 2); once none is left the stream pauses.
                for _ in 0..<30 where !(h.downs.last?.contains("every watched market was refused") ?? false) {
                    try await h.settle()
                    try await h.advance(by: .seconds(1))
                }
                try await h.waitFor("every market held out") { $0.downs.last?.contains("every watched market was refused") == true }
                #expect(h.lives == 0)
                #expect(h.quotes.isEmpty)
                let connections = h.server.connections.count
                h.knobs.set(.ack)
                // The first market was refused at most ~11 s before the pause: nothing is due within 40 s of it.
                try await h.advance(by: .seconds(40), step: .seconds(5))
                #expect(h.server.connections.count == connections, "nothing asked for again before a minute")
                // Second by second (a handshake takes real time), until a connection is reopened and live.
                for _ in 0..<30 where h.lives == 0 {
                    try await h.settle()
                    try await h.advance(by: .seconds(1))
                }
                try await h.waitLive()
                #expect(h.server.connections.count > connections)
                return
            }
            try await h.waitDown()
            #expect(h.downs[0].hasPrefix("exchange error: "))
            #expect(h.lives == 0)
            #expect(h.quotes.isEmpty)
            h.knobs.set(.ack)
            try await h.advance(by: .seconds(1))
            try await h.waitLive()
            #expect(h.server.connections.count == 2)
        }
    }

    @Test(arguments: StreamCase.all.filter { $0.refusable != nil })
    func aMarketTheExchangeSaysDoesNotExistIsLeftToRESTAndTheRestStreams(_ c: StreamCase) async throws {
        let refused = try #require(c.refusable)
        // Issue #26 item 1: the refusal keeps the connection; the rest is acknowledged and live on it (where
        // the exchange refuses the whole request, its other markets are asked for again on the same connection).
        try await withStream(c, refusing: [refused]) { h in
            try await h.waitLive()
            try await h.waitFor("the refused market handed to REST") { h in
                h.all.contains { if case .restOnly(let pairs) = $0 { !pairs.isEmpty } else { false } }
            }
            try await h.advance(by: .seconds(5))
            try await h.settle()
            #expect(h.downs.isEmpty, "\(h.downs)")
            #expect(h.server.connections.count == 1)
            let topics = c.topics(h.server.connections[0].texts)
            #expect(topics.isSuperset(of: c.expectedTopics.filter { !$0.contains(refused) }))
        }
    }

    @Test(arguments: StreamCase.all.filter(\.partialAck))
    func aPartialAckIsAnError(_ c: StreamCase) async throws {
        try await withStream(c, mode: .partial) { h in
            try await h.server.waitUntil("the subscription") { !($0.connections.first?.texts.isEmpty ?? true) }
            try await h.settle()
            if h.downs.isEmpty {
                // Acks that come one by one: the missing ones are missing for good after the ack timeout.
                #expect(h.lives == 0)
                try await h.advance(by: .seconds(10))
            }
            try await h.waitDown()
            #expect(h.lives == 0)
            #expect(h.downs[0].contains("not acknowledged"))
        }
    }

    @Test(arguments: StreamCase.all)
    func keepaliveOnVirtualTime(_ c: StreamCase) async throws {
        try await withStream(c, staleAfter: .seconds(3600)) { h in
            try await h.waitLive()
            let clientPings: @Sendable (StreamTestHarness) -> [WebSocketTestServer.Received] = { h in
                (h.server.connections.first?.received ?? []).filter { received in
                    switch received {
                    case .ping: return true
                    case .text(let text): return text.lowercased().contains("ping")
                    default: return false
                    }
                }
            }
            switch c.keepalive {
            case .serverPings:
                h.server.ping(Data([1, 2, 3, 4]))
                try await h.server.waitUntil("the pong") { $0.connections.first?.received.contains(.pong(Data([1, 2, 3, 4]))) == true }
                try await h.advance(by: .seconds(59))
                try await h.settle()
                #expect(h.downs.isEmpty)
                #expect(clientPings(h).isEmpty)
                try await h.advance(by: .seconds(1))
                try await h.waitDown()
                #expect(h.downs[0].hasPrefix("transport silent: no frame, pong or heartbeat for 60s"))
            case .clientPings(let ping, let interval, let window):
                try await h.advance(by: interval - .seconds(1))
                try await h.settle()
                #expect(clientPings(h).isEmpty)
                try await h.advance(by: .seconds(1))
                try await h.server.waitUntil("the first client ping") { $0.connections.first?.received.contains(ping) == true }
                try await h.waitFor("the pong counted") { $0.counters.snapshot.heartbeats >= 1 }
                // The exchange stops answering: the transport is dead one window after the last pong.
                h.knobs.setAnswerPings(false)
                h.server.setAnswerPings(false)
                try await h.advance(by: window - .seconds(1))
                try await h.settle()
                #expect(h.downs.isEmpty)
                #expect(clientPings(h).count == Int((window - .seconds(1)) / interval) + 1)
                try await h.advance(by: .seconds(1))
                try await h.waitDown()
                #expect(h.downs[0].hasPrefix("transport silent"))
            case .serverMessagePings(let ping, let pong, let window):
                h.server.push(ping)
                try await h.server.waitUntil("the pong") { $0.connections.first?.texts.contains(pong) == true }
                try await h.waitFor("the ping counted") { $0.counters.snapshot.heartbeats >= 1 }
                try await h.advance(by: window - .seconds(1))
                try await h.settle()
                #expect(h.downs.isEmpty)
                #expect(clientPings(h).isEmpty)
                try await h.advance(by: .seconds(1))
                try await h.waitDown()
                #expect(h.downs[0].hasPrefix("transport silent"))
            case .serverHeartbeats(let heartbeat, let window):
                h.server.push(heartbeat)
                try await h.waitFor("the heartbeat") { $0.counters.snapshot.heartbeats >= 1 }
                try await h.advance(by: window - .seconds(1))
                try await h.settle()
                #expect(h.downs.isEmpty)
                #expect(clientPings(h).isEmpty)
                try await h.advance(by: .seconds(1))
                try await h.waitDown()
                #expect(h.downs[0].hasPrefix("transport silent"))
            }
        }
    }
}
