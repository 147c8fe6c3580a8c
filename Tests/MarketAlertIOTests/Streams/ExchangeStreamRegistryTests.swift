import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

@Suite struct StreamCatalogTests {
    static let exchanges: [ExchangeID] = [.binance, .bybit, .bitget, .okx, .upbit, .bithumb, .kraken, .coinbase]

    @Test(arguments: exchanges)
    func everyExchangeHasASecureDefaultEndpointAndItsOwnProtocol(_ exchange: ExchangeID) throws {
        let entry = try #require(StreamCatalog.entries[exchange])
        #expect(entry.defaultURL.scheme == "wss")
        let source = try #require(StreamCatalog.source(for: exchange, clock: ManualClock(now: Date(timeIntervalSince1970: 0))))
        #expect(source.exchange == exchange)
    }

    @Test func aCatalogSourceRunsAgainstTheURLItIsGiven() async throws {
        let server = try await WebSocketTestServer(persona: StreamPersonas.binance(StreamPersonaKnobs()))
        let log = UpdateLog()
        let source = try #require(StreamCatalog.source(
            for: .binance, url: server.url("/ws"), clock: ManualClock(now: Date(timeIntervalSince1970: 1_750_000_000))))
        let task = Task { await source.run(pairs: [MarketPair(base: "BTC", quote: "USDT")]) { log.append($0) } }
        try await server.waitUntil("a subscription") { !($0.connections.first?.texts.isEmpty ?? true) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(10))
        while !log.all.contains(.live), clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(log.all == [.live])
        task.cancel()
        await task.value
        await server.shutdown()
    }
}
