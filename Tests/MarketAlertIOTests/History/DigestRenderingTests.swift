import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The digest event with premium rows and an open IPO window: valid against the v2 schema, and compact in
/// the chat formats (one line per rule and asset, one per window).
@Suite struct DigestRenderingTests {
    static let now = Date(timeIntervalSince1970: 1_795_392_000)  // 2026-11-23 00:00 UTC = 09:00 Seoul, 08:00 Taipei

    static func event() throws -> AlertEvent {
        let seoul = try #require(CalendarDay(iso: "2026-11-22"))
        let end = try #require(CalendarDay(iso: "2026-11-23"))
        let offerings = [
            IPOOffering(
                source: "twse", code: "7795", name: "長廣", market: "初上市", timeZone: "Asia/Taipei", subscriptionStart: seoul,
                subscriptionEnd: end, offerPrice: Decimal(string: "52.5"), shares: 1_000_000, currency: "TWD"),
            IPOOffering(
                source: "twse", code: "1111", name: "closed", market: nil, timeZone: "Asia/Taipei",
                subscriptionStart: CalendarDay(iso: "2026-11-01"), subscriptionEnd: CalendarDay(iso: "2026-11-03"), currency: "TWD"),
        ]
        var tallies: [String: DigestTally] = [:]
        DigestTally.fold([
            HistorySample(rule: "kimchi", asset: "BTC", at: now - 3600, minPct: 2.9, maxPct: 3.5000000000000004, lastPct: 3.1, notifications: 1),
            HistorySample(rule: "kimchi", asset: "BTC", at: now - 7200, minPct: 2.1, maxPct: 3.2, lastPct: 3.0),
            HistorySample(rule: "global", asset: "ETH", at: now - 600, minPct: 0.01, maxPct: 0.02, lastPct: 0.015),
        ], into: &tallies)
        return DigestEvents.event(
            id: "digest-0001", day: "2026-11-23", settings: DigestSettings(hour: 9, minute: 0, timeZone: "Asia/Seoul"), tallies: tallies,
            offerings: offerings, now: now)
    }

    @Test func theDigestIsValidAgainstTheV2SchemaWithRoundedNumbers() async throws {
        let event = try Self.event()
        let line = try event.jsonLine()
        #expect(try await SchemaValidator.validateAlertEvents([line]) == [])
        #expect(line.contains(#""max_pct":3.5,"#), "pct fields follow the 6-decimal rule: \(line)")
        #expect(event.digest?.ipo?.map(\.code) == ["7795"])
        #expect(event.digest?.ipo?.first?.state == .last_day)
        #expect(event.digest?.premium.map(\.rule) == ["global", "kimchi"])
        #expect(event.summary == "Daily digest 2026-11-23 (Asia/Seoul): 2 premiums, highest BTC (kimchi) 3.5%; 1 IPO window open")
    }

    @Test func chatFormatsGetOneLinePerRowAndWindow() throws {
        let event = try Self.event()
        let text = WebhookBody.text(for: event)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[1] == "ETH (global): 0.01% to 0.02% (max at 08:50), last 0.015%")
        #expect(lines[2] == "BTC (kimchi): 2.1% to 3.5% (max at 08:00), last 3.1%, 1 notification")
        #expect(lines[3] == "IPO 7795 長廣: subscription 2026-11-22 to 2026-11-23 (last day)")
        for format in [WebhookFormat.slack, .discord, .telegram] {
            let body = try WebhookBody.render(event, format: format, chatID: "42")
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let message = try #require((json["text"] ?? json["content"]) as? String)
            #expect(message.contains("BTC (kimchi): 2.1% to 3.5%"), "\(format): \(message)")
        }
    }
}
