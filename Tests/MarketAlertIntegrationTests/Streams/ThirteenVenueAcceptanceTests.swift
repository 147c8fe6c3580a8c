import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Issue #29's acceptance through the built daemon, every registry exchange at once on local peers speaking
/// its real protocol (`MockVenues`): a `global` rule over 11 USDT/USD markets (the 10 exchanges whose home
/// quote is not KRW — Kraken, Coinbase and Bitfinex listing BTC/USD only, as recorded — and Upbit's
/// `USDT-BTC`) and a `kimchi` rule over Upbit, Bithumb, Coinone and Binance
/// fire with the dearest and cheapest exchange and the pct computed here from the prices and the USD/KRW
/// rate served, first by REST polling at each exchange's minimum interval, then by stream, where the spikes
/// last less than one poll interval and are never in a REST answer.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct ThirteenVenueAcceptanceTests {
    static let all = ExchangeRegistry.standard.listed.map(\.id)
    static let global = ExchangeRegistry.standard.listed.filter { $0.wire.homeQuote != "KRW" }.map(\.id) + [.upbit]
    static let kimchi: [ExchangeID] = [.upbit, .bithumb, .coinone, .binance]
    static let usdt = MarketPair(base: "BTC", quote: "USDT")
    static let usd = MarketPair(base: "BTC", quote: "USD")
    static let krw = MarketPair(base: "BTC", quote: "KRW")
    /// The market of `id` the global rule reads: BTC/USD where its recorded markets are USD, else BTC/USDT.
    static func globalPair(_ id: ExchangeID) -> MarketPair {
        ExchangeRegistry.standard[id]?.wire.recordedQuote == "USD" ? usd : usdt
    }

    /// 100,000 USDT (or USD) everywhere; 140,140,000 won (100,100 USD at 1,400, 0.1% over Binance) in Korea.
    static let basePrice = "100000", baseWon = "140140000", usdKRW = "1400.00"

    static func config(_ harness: DaemonHarness, _ venues: MockVenues, streaming: Bool) -> String {
        let exchanges = venues.exchangesYAML(all, pollInterval: { id in
            streaming ? "5s" : ExchangeRegistry.standard[id].map { DurationText.format($0.catalog.minimumPollInterval) } ?? "1s"
        }, streaming: streaming)
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
            \(exchanges)
            fx:
              poll_interval: 500ms
              max_age: 15m
              providers:
                - name: dunamu
                  base_url: "\(harness.apis.baseURL)"
            premium:
              reference: USD
              stablecoins_as: { USDT: USD }
              max_quote_age: 30s
              rules:
                - name: global
                  assets: [BTC]
                  exchanges: [\(global.map(\.rawValue).joined(separator: ", "))]
                  quotes: [USDT, USD]
                  levels:
                    - { pct: 0.3, severity: warning }
                  clear_pct: 0.1
                - name: kimchi
                  assets: [BTC]
                  exchanges: [\(kimchi.map(\.rawValue).joined(separator: ", "))]
                  quotes: [KRW, USDT]
                  levels:
                    - { pct: 3.0, severity: warning }
                  clear_pct: 1.0
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            http:
              listen: "127.0.0.1:0"
            """
    }

    /// The base prices on every market the rules read (REST answers, and with `push` the streams too).
    static func setBase(_ venues: MockVenues, push: Bool = false) throws {
        for id in global { try Self.price(venues, id, globalPair(id), basePrice, push: push) }
        for id in kimchi where id != .binance { try Self.price(venues, id, krw, baseWon, push: push) }
    }

    static func price(_ venues: MockVenues, _ id: ExchangeID, _ pair: MarketPair, _ price: String, push: Bool) throws {
        if push { try venues.push(id, pair, price) } else { venues.set(id, pair, price) }
    }

    /// (dear - cheap) / cheap × 100 in decimal arithmetic, to the 6 decimals an event carries; a KRW price
    /// is first divided by the USD/KRW rate served.
    static func expectedPct(dear: String, cheap: String, dearInKRW: Bool = false) -> Double {
        let rate = Decimal(string: usdKRW) ?? .nan
        let high = (Decimal(string: dear) ?? .nan) / (dearInKRW ? rate : 1)
        let low = Decimal(string: cheap) ?? .nan
        var exact = (high - low) / low * 100
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, 6, .plain)
        return Double("\(rounded)") ?? .nan
    }

    static func check(
        _ event: AlertEvent, dear: ExchangeID, cheap: ExchangeID, pct: Double, transport: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(event.premium?.high.exchange == dear.rawValue, sourceLocation: sourceLocation)
        #expect(event.premium?.low.exchange == cheap.rawValue, sourceLocation: sourceLocation)
        #expect(abs((event.premium?.pct ?? .nan) - pct) < 1e-9, "pct \(event.premium?.pct ?? .nan), expected \(pct)", sourceLocation: sourceLocation)
        #expect(event.premium?.high.transport == transport && event.premium?.low.transport == transport, sourceLocation: sourceLocation)
    }

    /// Waits until `/metrics` counts a quote from every exchange by `transport`.
    static func waitForQuotes(from daemon: DaemonProcess, _ api: DaemonAPI, transport: String) async throws {
        try await daemon.waitUntil("a \(transport) quote from each of the \(all.count) exchanges") {
            let metrics = try await api.metrics()
            return all.allSatisfy { (metrics.value("marketalertd_quotes_received_total", ["exchange": $0.rawValue, "transport": transport]) ?? 0) >= 1 }
        }
    }

    static func firing(_ daemon: DaemonProcess, _ rule: String) async throws -> AlertEvent {
        try await daemon.waitForEvent("premium/\(rule)/BTC firing") { $0.key == "premium/\(rule)/BTC" && $0.status == "firing" }
    }

    static func resolved(_ daemon: DaemonProcess, _ rule: String) async throws {
        try await daemon.waitForEvent("premium/\(rule)/BTC resolved") { $0.key == "premium/\(rule)/BTC" && $0.status == "resolved" }
    }

    @Test func byRESTPollingBothRulesFireWithTheDearestAndCheapestExchangeAndTheExactPct() async throws {
        #expect(Set(Self.all) == Set(Self.global + Self.kimchi) && Self.all.count == 13 && Self.global.count == 11)
        #expect(Self.global.map(Self.globalPair).filter { $0 == Self.usd }.count == 3)
        let apis = try await MockMarketAPIs()
        let venues = try await MockVenues()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.setFX { $0.dunamuRate = Self.usdKRW }
        try Self.setBase(venues)
        try harness.writeConfig(Self.config(harness, venues, streaming: false))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)
        try await Self.waitForQuotes(from: daemon, api, transport: "rest")
        #expect(!daemon.events.contains { $0.kind == .premium }, "a premium before any price moved")

        // Bitfinex (BTC/USD) 0.2% up and Gate 0.2% down (neither alone reaches 0.3%); Bithumb 3.4% over Binance.
        venues.set(.bitfinex, Self.globalPair(.bitfinex), "100200")
        venues.set(.gate, Self.usdt, "99800")
        venues.set(.bithumb, Self.krw, "144723000")
        let global = try await Self.firing(daemon, "global")
        Self.check(global, dear: .bitfinex, cheap: .gate, pct: Self.expectedPct(dear: "100200", cheap: "99800"), transport: "rest")
        let kimchi = try await Self.firing(daemon, "kimchi")
        Self.check(
            kimchi, dear: .bithumb, cheap: .binance, pct: Self.expectedPct(dear: "144723000", cheap: Self.basePrice, dearInKRW: true),
            transport: "rest")

        try Self.setBase(venues)
        try await Self.resolved(daemon, "global")
        try await Self.resolved(daemon, "kimchi")
        #expect(!daemon.events.contains { $0.kind == .source })
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await venues.shutdown()
    }
}
