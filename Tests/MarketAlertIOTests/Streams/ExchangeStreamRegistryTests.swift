import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Each exchange's descriptor carries its stream: a secure default endpoint and its own protocol; the
/// registry builds it only when the configuration allows (stream on, a stream URL).
@Suite struct ExchangeStreamRegistryTests {
    static let exchanges: [ExchangeID] = ExchangeRegistry.standard.listed.filter { $0.stream != nil }.map(\.id)

    static func settings(_ exchange: ExchangeID, stream url: URL?) throws -> ExchangeSettings {
        let descriptor = try #require(ExchangeRegistry.standard[exchange])
        var settings = ExchangeSettings(id: exchange, baseURL: descriptor.catalog.defaultBaseURL)
        settings.streamURL = url
        return settings
    }

    static let context = StreamContext(clock: ManualClock(now: Date(timeIntervalSince1970: 0)), logger: Logger(label: "test"))

    @Test(arguments: exchanges)
    func everyExchangeHasASecureDefaultEndpointAndItsOwnProtocol(_ exchange: ExchangeID) throws {
        let defaultURL = try #require(ExchangeRegistry.standard[exchange]?.catalog.defaultStreamURL)
        // KuCoin's is its REST API's (https), which hands out the WebSocket endpoint (`endpointRequest`).
        #expect(defaultURL.scheme == (ExchangeRegistry.standard[exchange]?.stream?.endpointRequest == nil ? "wss" : "https"))
        let source = try #require(ExchangeRegistry.standard.makeStreamSource(try Self.settings(exchange, stream: defaultURL), context: Self.context))
        #expect(source.exchange == exchange)
    }

    @Test func noStreamWithoutAStreamURLOrWithStreamOff() throws {
        #expect(ExchangeRegistry.standard.makeStreamSource(try Self.settings(.okx, stream: nil), context: Self.context) == nil)
        var off = try Self.settings(.okx, stream: URL(string: "ws://127.0.0.1:1/ws"))
        off.streamEnabled = false
        #expect(ExchangeRegistry.standard.makeStreamSource(off, context: Self.context) == nil)
    }

    @Test func aRegistrySourceRunsAgainstTheURLItIsGiven() async throws {
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.binance)(StreamPersonaKnobs()))
        let log = UpdateLog()
        let context = StreamContext(clock: ManualClock(now: Date(timeIntervalSince1970: 1_750_000_000)), logger: Logger(label: "test"))
        let source = try #require(ExchangeRegistry.standard.makeStreamSource(try Self.settings(.binance, stream: server.url("/ws")), context: context))
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
