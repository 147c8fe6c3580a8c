import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// Numbers with binary-float residue, through every sink format: JSON line, text line, journal fields and each
/// webhook body. The events are made by the real evaluators (`PremiumEvents`, `FXMoveAlerts`) from prices
/// and rates as exchanges publish them.
@Suite("Exact numbers in every sink")
struct ExactNumbersTests {
    static let now = Date(timeIntervalSince1970: 1_773_110_820)  // 2026-03-10T02:47:00Z

    /// Residue as it leaked before: `3.8961040000000002`, `0.11000000000000001`, `0.06999999999999999`,
    /// `95123.4500000000001`: seven or more 0s or 9s in a row after a digit.
    static func hasResidue(_ text: String) -> Bool { text.contains(#/[0-9.](0{7,}|9{7,})[1-9]/#) }

    static func quote(_ exchange: ExchangeID, _ quote: String, last: String, market: String) -> Quote {
        Quote(exchange: exchange, market: market, base: "BTC", quote: quote, last: Price(last), bid: nil, ask: nil,
              exchangeTime: now.addingTimeInterval(-1), receivedAt: now)
    }

    static func book(_ quotes: [Quote]) -> QuoteBook {
        var book = QuoteBook()
        for quote in quotes { book.replace(quote.exchange, with: [quote]) }
        return book
    }

    /// A change as Dunamu reports it: `signedChangeRate` 0.0011, a fraction, in percent.
    static let usdKRW = FXRate(
        base: "USD", quote: "KRW", rate: Price("1394.70")!, provider: "dunamu", at: now,
        changePct: (Decimal(string: "0.0011")! * 100).doubleValue)

    /// global: binance 77,000.00000000 USDT vs bybit 80,000 USDT → 3.896103896…% (3.896104 at 6 decimals,
    /// which `NSDecimalNumber.doubleValue` turned into 3.8961040000000002); threshold 0.1 + 0.01.
    static func globalEvent() throws -> AlertEvent {
        let rule = PremiumRule(
            name: "global", assets: ["BTC"], exchanges: [.binance, .bybit], quotes: ["USDT"],
            levels: [AlertLevel(pct: 0.1 + 0.01, severity: .warning)], clearPct: 0.1 - 0.03)
        let book = book([
            quote(.binance, "USDT", last: "77000.00000000", market: "BTCUSDT"), quote(.bybit, "USDT", last: "80000.0", market: "BTCUSDT"),
        ])
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: [:])
        let observation = try #require(PremiumCalculator.observe(
            rule: rule, asset: "BTC", book: book, converter: converter, maxQuoteAge: .seconds(30), now: now))
        return try #require(PremiumEvents.event(
            id: "exact-numbers-0001", rule: rule, reference: "USD", observation: observation, action: .fire(level: 0), now: now))
    }

    /// kimchi: upbit 139,500,000 KRW at USD/KRW 1394.70 (= 100,021.5096…USD) over binance 95,006.70000000 USDT.
    static func kimchiEvent() throws -> AlertEvent {
        let rule = PremiumRule(
            name: "kimchi", assets: ["BTC"], exchanges: [.upbit, .binance], quotes: ["KRW", "USDT"],
            levels: [AlertLevel(pct: 3, severity: .warning)], clearPct: 2)
        let book = book([
            quote(.upbit, "KRW", last: "139500000.0", market: "KRW-BTC"), quote(.binance, "USDT", last: "95006.70000000", market: "BTCUSDT"),
        ])
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: ["KRW": usdKRW])
        let observation = try #require(PremiumCalculator.observe(
            rule: rule, asset: "BTC", book: book, converter: converter, maxQuoteAge: .seconds(30), now: now))
        return try #require(PremiumEvents.event(
            id: "exact-numbers-0002", rule: rule, reference: "USD", observation: observation, action: .fire(level: 0), now: now))
    }

    static func fxEvent() throws -> AlertEvent {
        try #require(FXMoveAlerts.event(
            id: "exact-numbers-0003", alert: FXAlertSettings(base: "USD", quote: "KRW", changePct: 0.1), rate: usdKRW, action: .fire(level: 0), now: now))
    }

    /// Every rendering of `event` a sink produces, by name.
    static func renderings(_ event: AlertEvent) throws -> [(String, String)] {
        let json = StdoutSink(format: .json, displayTimeZones: ["UTC"]) { _ in true }.line(for: event)
        let text = StdoutSink(format: .text, displayTimeZones: ["UTC", "Asia/Seoul"]) { _ in true }.line(for: event)
        let journal = JournalSink.fields(for: event).map { "\($0.0)=\($0.1)" }.joined(separator: "\n")
        var result = [("json line", json), ("text line", text), ("journal", journal)]
        for format in [WebhookFormat.json, .slack, .discord, .telegram] {
            let body = try WebhookBody.render(event, format: format, chatID: "42")
            result.append(("webhook \(format)", String(decoding: body, as: UTF8.self)))
        }
        return result
    }

    @Test func premiumPctPricesAndThresholdsAreExactEverywhere() throws {
        let event = try Self.globalEvent()
        #expect(event.summary == "BTC premium (global) 3.896104% >= 0.11%: bybit 80,000.00 USDT over binance 77,000.00 USDT")
        for (name, text) in try Self.renderings(event) {
            #expect(!Self.hasResidue(text), "\(name): \(text)")
            #expect(text.contains("3.896104"), "\(name)")
        }
        let json = StdoutSink(format: .json, displayTimeZones: []) { _ in true }.line(for: event)
        #expect(json.contains(#""pct":3.896104,"#))
        #expect(json.contains(#""threshold_pct":0.11}"#))
        #expect(json.contains(#""price":77000,"#) && json.contains(#""price_ref":77000,"#))
        let fields = Dictionary(JournalSink.fields(for: event), uniquingKeysWith: { first, _ in first })
        #expect(fields["MARKETALERT_PREMIUM_PCT"] == "3.896104")
        #expect(fields["MARKETALERT_THRESHOLD_PCT"] == "0.11")
        #expect(fields["MARKETALERT_LOW_PRICE"] == "77000")
    }

    @Test func krwPricesRatesAndChangesAreExactEverywhere() throws {
        let event = try Self.kimchiEvent()
        #expect(event.summary.contains("upbit 139,500,000 KRW (100,021.51 USD) over binance 95,006.70 USDT"), "\(event.summary)")
        for (name, text) in try Self.renderings(event) {
            #expect(!Self.hasResidue(text), "\(name): \(text)")
        }
        let json = StdoutSink(format: .json, displayTimeZones: []) { _ in true }.line(for: event)
        #expect(json.contains(#""price":139500000,"#))
        #expect(json.contains(#""price_ref":100021.51,"#))
        #expect(json.contains(#""price":95006.7,"#))
        #expect(json.contains(#""rate":1394.7"#))
        #expect(json.contains(#""change_pct":0.11,"#))
        let fields = Dictionary(JournalSink.fields(for: event), uniquingKeysWith: { first, _ in first })
        #expect(fields["MARKETALERT_HIGH_PRICE"] == "139500000")

        let fx = try Self.fxEvent()
        #expect(fx.summary.hasPrefix("USD/KRW 1,394.7 moved +0.11% vs previous close"), "\(fx.summary)")
        for (name, text) in try Self.renderings(fx) {
            #expect(!Self.hasResidue(text), "\(name): \(text)")
            #expect(text.contains("0.11"), "\(name)")
        }
        let fxFields = Dictionary(JournalSink.fields(for: fx), uniquingKeysWith: { first, _ in first })
        #expect(fxFields["MARKETALERT_FX_CHANGE_PCT"] == "0.11" && fxFields["MARKETALERT_FX_RATE"] == "1394.7")
    }

    @Test func theResidueCheckCanFail() {
        #expect(Self.hasResidue("\"pct\":3.8961040000000002"))
        #expect(Self.hasResidue("0.06999999999999999,"))
        #expect(!Self.hasResidue("139500000 KRW, 100000.5"))
    }

    @Test func everyJSONRenderingValidatesAgainstTheV2SchemaAndDecodesBack() async throws {
        let events = [try Self.globalEvent(), try Self.kimchiEvent(), try Self.fxEvent()]
        var lines: [String] = []
        for event in events {
            let line = try event.jsonLine()
            lines.append(line)
            lines.append(String(decoding: try WebhookBody.render(event, format: .json, chatID: nil), as: UTF8.self))
            let journalJSON = JournalSink.fields(for: event).first { $0.0 == "MARKETALERT_EVENT_JSON" }?.1
            lines.append(try #require(journalJSON))
            // What a consumer decodes is what was sent: the rounding is already in the event.
            #expect(try AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data(line.utf8)) == event)
        }
        let errors = try await SchemaValidator.validateAlertEvents(lines)
        #expect(errors == [], "\(errors)")
        #expect(lines.count == 9)
    }
}
