import Foundation
import MarketAlertCore
import MarketAlertIO
import Synchronization
import Testing

@Suite("Journal sink")
struct JournalSinkTests {
    /// The value of the one field named `name`; fails the test when it is missing or repeated.
    private func value(_ name: String, in fields: [(String, String)]) -> String? {
        let values = fields.filter { $0.0 == name }.map(\.1)
        #expect(values.count <= 1, "\(name) appears \(values.count) times")
        return values.first
    }

    @Test("common fields of every entry")
    func common() throws {
        let fields = JournalSink.fields(for: SampleAlertEvents.premium)
        #expect(value("MESSAGE", in: fields) == SampleAlertEvents.premium.summary)
        #expect(value("PRIORITY", in: fields) == "4")
        #expect(value("SYSLOG_IDENTIFIER", in: fields) == "marketalertd")
        #expect(value("MESSAGE_ID", in: fields) == "542effa5e0004aba93927cd2fcdedcd7")
        #expect(value("MARKETALERT_KEY", in: fields) == "premium/global/BTC")
        #expect(value("MARKETALERT_KIND", in: fields) == "premium")
        #expect(value("MARKETALERT_STATUS", in: fields) == "firing")
        #expect(value("MARKETALERT_SEVERITY", in: fields) == "warning")
        #expect(value("MARKETALERT_EVENT_ID", in: fields) == "0b7c6a1e-5f1d-4c1e-9a53-3f7f2f0c9d11")
        #expect(value("MARKETALERT_AT", in: fields) == "2026-03-10T02:47:00Z")
        for (name, _) in fields { #expect(JournalFieldName.isValid(name), "\(name)") }
    }

    @Test("premium fields")
    func premium() {
        let fields = JournalSink.fields(for: SampleAlertEvents.premium)
        #expect(value("MARKETALERT_RULE", in: fields) == "global")
        #expect(value("MARKETALERT_ASSET", in: fields) == "BTC")
        #expect(value("MARKETALERT_PREMIUM_PCT", in: fields) == "0.119886")
        #expect(value("MARKETALERT_THRESHOLD_PCT", in: fields) == "0.1")
        #expect(value("MARKETALERT_BASIS", in: fields) == "last")
        #expect(value("MARKETALERT_HIGH_EXCHANGE", in: fields) == "bybit")
        #expect(value("MARKETALERT_HIGH_PRICE", in: fields) == "95120")
        #expect(value("MARKETALERT_LOW_EXCHANGE", in: fields) == "binance")
        #expect(value("MARKETALERT_LOW_MARKET", in: fields) == "BTCUSDT")
        #expect(value("MARKETALERT_LOW_PRICE", in: fields) == "95006.1")
        #expect(value("MARKETALERT_IPO_CODE", in: fields) == nil)
    }

    @Test("ipo, fx and source fields")
    func otherKinds() {
        let ipo = JournalSink.fields(for: SampleAlertEvents.ipo)
        #expect(value("MARKETALERT_IPO_CODE", in: ipo) == "7795")
        #expect(value("MARKETALERT_IPO_NAME", in: ipo) == "長廣")
        #expect(value("MARKETALERT_IPO_STATE", in: ipo) == "open")
        #expect(value("MARKETALERT_IPO_PREVIOUS_STATE", in: ipo) == "upcoming")
        #expect(value("MARKETALERT_IPO_SUBSCRIPTION_END", in: ipo) == "2026-03-12")
        #expect(value("PRIORITY", in: ipo) == "5")
        #expect(value("MESSAGE_ID", in: ipo) == "6bc1814792584f00aa8981a40c37b76f")

        let fx = JournalSink.fields(for: SampleAlertEvents.fx)
        #expect(value("MARKETALERT_FX_PAIR", in: fx) == "USD/KRW")
        #expect(value("MARKETALERT_FX_RATE", in: fx) == "1466.5")
        #expect(value("MARKETALERT_FX_CHANGE_PCT", in: fx) == "0.62")
        #expect(value("PRIORITY", in: fx) == "6")

        let source = JournalSink.fields(for: SampleAlertEvents.source)
        #expect(value("MARKETALERT_SOURCE", in: source) == "bithumb")
        #expect(value("MARKETALERT_SOURCE_ERROR", in: source) == "HTTP 503")
        #expect(value("MARKETALERT_SOURCE_CONSECUTIVE_FAILURES", in: source) == "5")
        #expect(value("PRIORITY", in: source) == "2")
    }

    @Test("the event JSON field decodes back to the same event")
    func eventJSON() throws {
        for event in [SampleAlertEvents.premium, SampleAlertEvents.ipo, SampleAlertEvents.fx, SampleAlertEvents.source] {
            let json = try #require(value("MARKETALERT_EVENT_JSON", in: JournalSink.fields(for: event)))
            #expect(json == (try event.jsonLine()))
            #expect(try AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data(json.utf8)) == event)
        }
    }

    @Test("message ids are distinct 128-bit hex ids, one per kind")
    func messageIDs() {
        let ids = AlertKind.allCases.map(JournalSink.messageID(for:))
        #expect(Set(ids).count == AlertKind.allCases.count)
        for id in ids {
            #expect(id.count == 32)
            #expect(id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        }
    }

    @Test("deliver hands the fields to the transport once")
    func deliver() async {
        let sent = Mutex<[[(String, String)]]>([])
        let sink = JournalSink(write: { fields in
            sent.withLock { $0.append(fields) }
            return 0
        })
        await sink.deliver(SampleAlertEvents.fx)
        let entries = sent.withLock { $0 }
        #expect(entries.count == 1)
        #expect(entries.first.map { $0.map(\.0) } == JournalSink.fields(for: SampleAlertEvents.fx).map(\.0))
    }
}
