import Foundation
import MarketAlertCore
import Testing

@Suite("IPO events")
struct IPOEventsTests {
    typealias Notice = SubscriptionStateMachine.Notice

    let offering = IPOSubscriptionStateMachineTests.offering()

    func event(_ notice: Notice, today: String, at: String = "2024-01-01T16:00:00Z", offering: IPOOffering? = nil) throws -> AlertEvent {
        IPOEvents.event(
            id: "0123456789", offering: offering ?? self.offering, notice: notice, today: try #require(CalendarDay(iso: today)),
            now: ipoUTC(at))
    }

    @Test func opensEventCarriesTheOffering() throws {
        let event = try event(Notice(notification: .opens, state: .open, previousState: .upcoming), today: "2024-01-02")
        #expect(event.summary == "IPO 7795 長廣 (初上市) opens today 2024-01-02 (Asia/Taipei), closes 2024-01-04, price 45.00 TWD")
        #expect(event.kind == .ipo)
        #expect(event.key == "ipo/twse/7795/2024-01-02")
        #expect(event.status == "open")
        #expect(event.severity == .notice)
        #expect(event.at == ipoUTC("2024-01-01T16:00:00Z"))
        let detail = try #require(event.ipo)
        #expect(detail == IPODetail(
            source: "twse", code: "7795", name: "長廣", market: "初上市", state: .open, previousState: .upcoming,
            subscriptionStart: "2024-01-02", subscriptionEnd: "2024-01-04", lotteryDate: "2024-01-08", listingDate: nil,
            price: Decimal(45), shares: 2_520_000, timeZone: "Asia/Taipei"))
        let json = try event.jsonLine()
        #expect(json.contains(#""previous_state":"upcoming""#))
        #expect(json.contains(#""subscription_start":"2024-01-02""#))
        #expect(json.contains(#""listing_date":null"#))
        #expect(json.contains(#""at":"2024-01-01T16:00:00Z""#))
    }

    @Test func summariesOfEachNotification() throws {
        #expect(try event(Notice(notification: .announced, state: .upcoming, previousState: nil), today: "2023-12-20").summary
            == "IPO 7795 長廣 (初上市) announced: subscription 2024-01-02 to 2024-01-04 (Asia/Taipei), lottery 2024-01-08, price 45.00 TWD, 2,520,000 shares")
        #expect(try event(Notice(notification: .opens, state: .open, previousState: .upcoming, catchUp: true), today: "2024-01-03").summary
            == "IPO 7795 長廣 (初上市) subscription opened yesterday (2024-01-02, Asia/Taipei), closes tomorrow (2024-01-04), price 45.00 TWD")
        #expect(try event(Notice(notification: .opens, state: .last_day, previousState: .upcoming, catchUp: true), today: "2024-01-04").summary
            == "IPO 7795 長廣 (初上市) subscription opened 2 days ago (2024-01-02, Asia/Taipei), last day today (2024-01-04), price 45.00 TWD")
        #expect(try event(Notice(notification: .closed, state: .closed, previousState: .upcoming, catchUp: true), today: "2024-01-05").summary
            == "IPO 7795 長廣 (初上市) subscription 2024-01-02 to 2024-01-04 (Asia/Taipei) closed yesterday, lottery 2024-01-08")
        #expect(try event(Notice(notification: .last_day, state: .last_day, previousState: .open), today: "2024-01-04").summary
            == "IPO 7795 長廣 (初上市) last day to subscribe today 2024-01-04 (Asia/Taipei), price 45.00 TWD")
        let closed = try event(Notice(notification: .closed, state: .closed, previousState: .last_day), today: "2024-01-05")
        #expect(closed.summary == "IPO 7795 長廣 (初上市) subscription closed 2024-01-04 (Asia/Taipei), lottery 2024-01-08")
        #expect(closed.status == "closed" && closed.severity == .info)
        let lottery = try event(Notice(notification: .lottery_day, state: .closed, previousState: .closed), today: "2024-01-08")
        #expect(lottery.summary == "IPO 7795 長廣 (初上市) lottery draw today 2024-01-08 (Asia/Taipei), price 45.00 TWD")
        #expect(lottery.status == "closed")
        let announced = try event(Notice(notification: .announced, state: .upcoming, previousState: nil), today: "2023-12-20")
        #expect(announced.status == "announced" && announced.ipo?.state == .upcoming && announced.ipo?.previousState == nil)
    }

    @Test func firstRunOnALastDayOfferingIsOneEventSayingWhatWasMissed() throws {
        let today = try #require(CalendarDay(iso: "2024-01-04"))
        let (machine, notices) = SubscriptionStateMachine.start(offering: offering, today: today, notify: Set(IPONotification.allCases))
        let events = notices.map { IPOEvents.event(id: "e", offering: offering, notice: $0, today: today, now: ipoUTC("2024-01-04T01:00:00Z")) }
        #expect(events.map(\.status) == ["last_day"])
        #expect(events.first?.summary
            == "IPO 7795 長廣 (初上市) subscription opened 2 days ago (2024-01-02, Asia/Taipei), last day today (2024-01-04), price 45.00 TWD")
        #expect(events.first?.ipo?.previousState == nil)
        var later = machine
        #expect(later.observe(offering: offering, today: today, notify: Set(IPONotification.allCases)).isEmpty)
        // A one-day window seen on its day is not a catch-up.
        let oneDay = IPOSubscriptionStateMachineTests.offering(start: "2024-01-04", end: "2024-01-04")
        let single = SubscriptionStateMachine.start(offering: oneDay, today: today, notify: [.opens, .last_day]).notices
        #expect(single.map { IPOEvents.event(id: "e", offering: oneDay, notice: $0, today: today, now: ipoUTC("2024-01-04T01:00:00Z")).summary }
            == ["IPO 7795 長廣 (初上市) one-day subscription today 2024-01-04 (Asia/Taipei), price 45.00 TWD"])
    }

    @Test func relativeDays() throws {
        let today = try #require(CalendarDay(iso: "2024-02-28"))
        let phrases = try ["2024-02-26", "2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01", "2025-02-28"].map {
            RelativeDay.phrase(try #require(CalendarDay(iso: $0)), today: today)
        }
        #expect(phrases == ["2 days ago", "yesterday", "today", "tomorrow", "in 2 days", "in 366 days"])
    }

    @Test func provisionalAndMissingPrices() throws {
        var provisional = offering
        provisional.offerPrice = Decimal(102)
        provisional.finalPrice = nil
        let opens = Notice(notification: .opens, state: .open, previousState: .upcoming)
        #expect(try event(opens, today: "2024-01-02", offering: provisional).summary.hasSuffix("price 102.00 TWD (not final)"))
        #expect(try event(opens, today: "2024-01-02", offering: provisional).ipo?.price == Decimal(102))
        var none = offering
        none.offerPrice = nil
        none.finalPrice = nil
        let unpriced = try event(opens, today: "2024-01-02", offering: none)
        #expect(unpriced.summary == "IPO 7795 長廣 (初上市) opens today 2024-01-02 (Asia/Taipei), closes 2024-01-04")
        #expect(unpriced.ipo?.price == nil)
        #expect(IPOEvents.priceDigits(try #require(Decimal(string: "98.654"))) == "98.654")
        #expect(IPOEvents.priceDigits(try #require(Decimal(string: "1250"))) == "1,250.00")
    }

    @Test func unknownDatesAreSaidAsPublished() throws {
        var broken = IPOOffering(
            source: "twse", code: "4169", name: "泰宗", market: nil, timeZone: "Asia/Taipei", subscriptionStart: nil,
            subscriptionEnd: nil, subscriptionStartText: "115/02/30", subscriptionEndText: "", currency: "TWD")
        broken.drawCancelled = "取消"
        let event = try event(Notice(notification: .announced, state: .unknown, previousState: nil), today: "2026-02-01", offering: broken)
        #expect(event.summary == #"IPO 4169 泰宗 announced with subscription dates not understood ("115/02/30" to ""), public draw cancelled: 取消"#)
        #expect(event.key == "ipo/twse/4169/unknown")
        #expect(event.ipo?.subscriptionStart == nil && event.ipo?.state == .unknown)
    }
}
