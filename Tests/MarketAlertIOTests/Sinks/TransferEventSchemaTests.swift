import Foundation
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertTestSupport
import Testing

/// Kind `transfer` events and premium notifications with `premium.transfer` are valid v3 events (Python's
/// jsonschema against the contract's schema), and every text rendering (stdout text, Slack, Discord,
/// Telegram) says what stopped, as they say a `source` alert.
@Suite struct TransferEventSchemaTests {
    let t0 = Date(timeIntervalSince1970: 1_773_108_000)

    func status(withdraw: TransferState, deposit: TransferState) -> AssetTransferStatus {
        AssetTransferStatus(
            exchange: .upbit, asset: "BTC",
            networks: [NetworkTransferStatus(network: "BTC", withdraw: withdraw, deposit: deposit)], checkedAt: t0)
    }

    func events() throws -> [AlertEvent] {
        let firing = TransferEvents.event(id: "00000000-0000-4000-8000-000000000001", status: status(withdraw: .suspended, deposit: .ok), firing: true, now: t0)
        let resolved = TransferEvents.event(id: "00000000-0000-4000-8000-000000000002", status: status(withdraw: .ok, deposit: .ok), firing: false, now: t0)
        // A premium notification of an annotating rule, as the engine makes it: upbit cannot take deposits,
        // binance was never asked.
        var rule = PremiumRule(name: "kimchi", assets: ["BTC"], exchanges: [.upbit, .binance], quotes: ["USDT"], levels: PremiumRule.defaultLevels, clearPct: 0.04)
        rule.transfers = .annotate
        var settings = Settings()
        for id in [ExchangeID.upbit, .binance] { settings.exchanges[id] = ExchangeSettings(id: id, baseURL: URL(constant: "http://127.0.0.1:1")) }
        settings.premium.rules = [rule]
        settings.transfers = TransferSettings()
        settings.transfers?.notify = false
        var engine = AlertEngine(settings: settings, now: t0) { "00000000-0000-4000-8000-000000000003" }
        let report = TransferReport(exchange: .upbit, checkedAt: t0, statuses: ["BTC": status(withdraw: .ok, deposit: .suspended)])
        _ = engine.handle(.transfers(report), now: t0)
        var published: [AlertEvent] = []
        for (id, price, market) in [(ExchangeID.binance, "100000", "BTCUSDT"), (.upbit, "100120", "USDT-BTC")] {
            let quote = Quote(exchange: id, market: market, base: "BTC", quote: "USDT", last: Price(price), receivedAt: t0)
            for case .publish(let publication) in engine.handle(.quotes(id, [quote], .snapshot), now: t0) { published += publication.events }
        }
        let premium = try #require(published.first { $0.kind == .premium })
        return [firing, resolved, premium]
    }

    @Test func transferEventsValidateAgainstTheV3Schema() async throws {
        let lines = try events().map { try $0.jsonLine() }
        #expect(lines[0].contains(#""kind":"transfer""#) && lines[0].contains(#""withdraw":"suspended""#))
        #expect(lines[2].contains(#""transfer":{"checked_at":null,"deposit_high":"suspended","withdraw_low":"unknown"}"#), "\(lines[2])")
        let problems = try await SchemaValidator.validateAlertEvents(lines)
        #expect(problems == [], "\(problems)")
    }

    @Test func everyTextRenderingSaysWhatStopped() throws {
        let firing = try events()[0]
        let text = TextAlertFormatter.line(firing, zones: [TimeZone.gmt])
        #expect(text.hasSuffix("| WARNING transfer/upbit/BTC firing: upbit: BTC withdrawals suspended (deposits ok), checked 2026-03-10T02:00:00Z"))
        for format in [WebhookFormat.slack, .discord, .telegram] {
            let body = String(decoding: try WebhookBody.render(firing, format: format, chatID: "42"), as: UTF8.self)
            #expect(body.contains("[WARNING] transfer/upbit/BTC firing"), "\(format): \(body)")
            #expect(body.contains("withdrawals suspended (deposits ok)"), "\(format): \(body)")
        }
        let premium = try events()[2]
        #expect(premium.summary.hasSuffix("; withdraw on binance unknown, deposit on upbit suspended"))
    }
}
