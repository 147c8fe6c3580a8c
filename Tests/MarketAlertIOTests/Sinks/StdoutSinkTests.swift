import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

@Suite struct StdoutSinkTests {
    let event = AlertEvent(
        id: "0f3c2b1a-aaaa-bbbb-cccc-000000000001", key: "premium/global/BTC", kind: .premium, status: "firing",
        severity: .warning, at: Date(timeIntervalSince1970: 1_710_038_820.5),
        summary: "BTC premium (global) 0.123% >= 0.1%: bybit 95,123.45 USDT over binance 95,006.70 USDT",
        premium: PremiumDetail(
            rule: "global", asset: "BTC", pct: 0.123, thresholdPct: 0.1, basis: .last, reference: "USD",
            high: QuoteDetail(exchange: "bybit", market: "BTCUSDT", price: Decimal(string: "95123.45")!, quote: "USDT",
                              priceRef: Decimal(string: "95123.45")!, side: "last", at: Date(timeIntervalSince1970: 1_710_038_820)),
            low: QuoteDetail(exchange: "binance", market: "BTCUSDT", price: Decimal(string: "95006.7")!, quote: "USDT",
                             priceRef: Decimal(string: "95006.7")!, side: "last", at: Date(timeIntervalSince1970: 1_710_038_819)),
            fx: []))

    @Test func jsonLinesAreOneSchemaValidEventPerLine() async throws {
        let lines = Mutex<[String]>([])
        let sink = StdoutSink(format: .json, displayTimeZones: ["UTC"]) { line in
            lines.withLock { $0.append(line) }
            return true
        }
        try await sink.deliver(event)
        try await sink.deliver(event)
        let written = lines.withLock { $0 }
        #expect(written.count == 2)
        #expect(written.allSatisfy { !$0.contains("\n") })
        #expect(written[0].contains(#""at":"2024-03-10T02:47:00.500Z""#))
        #expect(written[0].contains(#""price":95123.45"#))
        let decoded = try AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data(written[0].utf8))
        #expect(decoded == event)
        #expect(try await SchemaValidator.validateAlertEvents(written) == [])
    }

    @Test func textLinesShowTheTimeInEveryDisplayZone() async {
        let sink = StdoutSink(format: .text, displayTimeZones: ["UTC", "Asia/Seoul", "Asia/Taipei"]) { _ in true }
        let line = sink.line(for: event)
        #expect(line == "2024-03-10 02:47:00 UTC | 2024-03-10 11:47:00 Asia/Seoul | 2024-03-10 10:47:00 Asia/Taipei | "
            + "WARNING premium/global/BTC firing: BTC premium (global) 0.123% >= 0.1%: bybit 95,123.45 USDT over binance 95,006.70 USDT")
    }
}
