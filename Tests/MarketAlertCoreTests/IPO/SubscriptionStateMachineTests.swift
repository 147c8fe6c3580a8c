import Foundation
import MarketAlertCore
import Testing

@Suite("IPO SubscriptionStateMachine")
struct IPOSubscriptionStateMachineTests {
    /// 7795 長廣: subscription 2024-01-02 … 2024-01-04, lottery 2024-01-08.
    static func offering(start: String = "2024-01-02", end: String = "2024-01-04", lottery: String? = "2024-01-08") -> IPOOffering {
        IPOOffering(
            source: "twse", code: "7795", name: "長廣", market: "初上市", timeZone: "Asia/Taipei",
            subscriptionStart: CalendarDay(iso: start), subscriptionEnd: CalendarDay(iso: end),
            lotteryDate: lottery.flatMap { CalendarDay(iso: $0) }, offerPrice: Decimal(45), finalPrice: Decimal(45),
            shares: 2_520_000, currency: "TWD")
    }

    static func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(iso: text)) }

    /// Observes `offering` on each day in turn and returns the notices per day.
    static func walk(
        _ offering: IPOOffering, days: [String], notify: Set<IPONotification>
    ) throws -> [(String, [SubscriptionStateMachine.Notice])] {
        var machine: SubscriptionStateMachine?
        var result: [(String, [SubscriptionStateMachine.Notice])] = []
        for text in days {
            let today = try day(text)
            if var current = machine {
                result.append((text, current.observe(offering: offering, today: today, notify: notify)))
                machine = current
            } else {
                let (started, notices) = SubscriptionStateMachine.start(offering: offering, today: today, notify: notify)
                machine = started
                result.append((text, notices))
            }
        }
        return result
    }

    @Test func statesOfTheWindowAreInclusive() throws {
        let offering = Self.offering()
        #expect(offering.state(on: try Self.day("2024-01-01")) == .upcoming)
        #expect(offering.state(on: try Self.day("2024-01-02")) == .open)
        #expect(offering.state(on: try Self.day("2024-01-03")) == .open)
        #expect(offering.state(on: try Self.day("2024-01-04")) == .last_day)
        #expect(offering.state(on: try Self.day("2024-01-05")) == .closed)
        #expect(Self.offering(start: "2024-01-05", end: "2024-01-04").state(on: try Self.day("2024-01-04")) == .unknown)
        var broken = Self.offering()
        broken.subscriptionEnd = nil
        #expect(broken.state(on: try Self.day("2024-01-03")) == .unknown)
        #expect(broken.key == "ipo/twse/7795/2024-01-02")
        broken.subscriptionStart = nil
        #expect(broken.key == "ipo/twse/7795/unknown")
    }

    @Test func stateAtInstantsAroundTaipeiMidnight() throws {
        let calendar = try #require(MarketCalendar(timeZoneIdentifier: "Asia/Taipei"))
        let offering = Self.offering()
        #expect(offering.state(at: ipoUTC("2024-01-01T15:59:59Z"), calendar: calendar) == .upcoming)
        #expect(offering.state(at: ipoUTC("2024-01-01T16:00:00Z"), calendar: calendar) == .open)
        #expect(offering.state(at: ipoUTC("2024-01-03T15:59:59Z"), calendar: calendar) == .open)
        #expect(offering.state(at: ipoUTC("2024-01-03T16:00:00Z"), calendar: calendar) == .last_day)
        #expect(offering.state(at: ipoUTC("2024-01-04T16:00:00Z"), calendar: calendar) == .closed)
    }

    @Test func boundariesAreLocalMidnights() throws {
        let taipei = try #require(MarketCalendar(timeZoneIdentifier: "Asia/Taipei"))
        let offering = Self.offering()
        #expect(offering.boundaries(in: taipei).sorted() == [
            ipoUTC("2024-01-01T16:00:00Z"), ipoUTC("2024-01-03T16:00:00Z"), ipoUTC("2024-01-04T16:00:00Z"),
            ipoUTC("2024-01-05T16:00:00Z"), ipoUTC("2024-01-07T16:00:00Z"), ipoUTC("2024-01-08T16:00:00Z"),
        ])
        #expect(offering.nextBoundary(after: ipoUTC("2024-01-01T16:00:00Z"), in: taipei) == ipoUTC("2024-01-03T16:00:00Z"))
        #expect(offering.nextBoundary(after: ipoUTC("2024-01-08T16:00:00Z"), in: taipei) == nil)
        // The same window in New York opens at 05:00 UTC (EST) but closes after the DST change at 04:00 UTC (EDT).
        let newYork = try #require(MarketCalendar(timeZoneIdentifier: "America/New_York"))
        let spring = Self.offering(start: "2024-03-08", end: "2024-03-11", lottery: nil)
        #expect(spring.boundaries(in: newYork).sorted() == [
            ipoUTC("2024-03-08T05:00:00Z"), ipoUTC("2024-03-11T04:00:00Z"), ipoUTC("2024-03-12T04:00:00Z"),
            ipoUTC("2024-03-13T04:00:00Z"),
        ])
        #expect(spring.state(at: ipoUTC("2024-03-11T03:59:59Z"), calendar: newYork) == .open)
        #expect(spring.state(at: ipoUTC("2024-03-11T04:00:00Z"), calendar: newYork) == .last_day)
    }

    @Test func defaultNotifySendsOpensAndLastDayOnce() throws {
        let days = ["2023-12-31", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-04",
                    "2024-01-05", "2024-01-08", "2024-01-09"]
        let walked = try Self.walk(Self.offering(), days: days, notify: [.opens, .last_day])
        let sent = walked.flatMap { day, notices in notices.map { (day, $0.notification) } }
        #expect(sent.map(\.0) == ["2024-01-02", "2024-01-04"])
        #expect(sent.map(\.1) == [.opens, .last_day])
        let opens = try #require(walked[2].1.first)
        #expect(opens.state == .open && opens.previousState == .upcoming && !opens.catchUp)
        let lastDay = try #require(walked[5].1.first)
        #expect(lastDay.state == .last_day && lastDay.previousState == .open)
    }

    @Test func everyNotificationInItsOrder() throws {
        let days = ["2023-12-30", "2023-12-31", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-06",
                    "2024-01-08", "2024-01-08", "2024-01-09"]
        let walked = try Self.walk(Self.offering(), days: days, notify: Set(IPONotification.allCases))
        let sent = walked.flatMap { day, notices in notices.map { "\(day) \($0.notification.rawValue)" } }
        #expect(sent == [
            "2023-12-30 announced", "2024-01-02 opens", "2024-01-04 last_day", "2024-01-05 closed",
            "2024-01-08 lottery_day",
        ])
        #expect(walked[0].1.first?.previousState == nil)
        #expect(walked[5].1.first?.previousState == .last_day)
        #expect(walked[7].1.first?.state == .closed)
    }

    @Test func catchUpOpensOnceWhileStillOpen() throws {
        // Seen upcoming, then down over the start day; back on 01-03.
        let walked = try Self.walk(Self.offering(), days: ["2024-01-01", "2024-01-03", "2024-01-03", "2024-01-04"], notify: [.opens, .last_day])
        #expect(walked[1].1 == [SubscriptionStateMachine.Notice(notification: .opens, state: .open, previousState: .upcoming, catchUp: true)])
        #expect(walked[2].1.isEmpty)
        #expect(walked[3].1.map(\.notification) == [.last_day])
    }

    @Test func firstSeenWhileOpenSendsOpensWhichAlsoAnnounces() throws {
        let walked = try Self.walk(Self.offering(), days: ["2024-01-03", "2024-01-03"], notify: [.announced, .opens, .last_day])
        #expect(walked[0].1 == [SubscriptionStateMachine.Notice(notification: .opens, state: .open, previousState: nil, catchUp: true)])
        #expect(walked[1].1.isEmpty)
        // Without opens/last_day configured, a key first seen while open is still announced.
        let announcedOnly = try Self.walk(Self.offering(), days: ["2024-01-03", "2024-01-04"], notify: [.announced])
        #expect(announcedOnly.map { $0.1.map(\.notification) } == [[.announced], []])
    }

    @Test func firstRunOnTheLastDaySendsOneLastDayNotice() throws {
        // The defect: seen first on its last day, the offering got an `opens` catch-up (status last_day) and the
        // `last_day` notice: two notifications with the same key and state.
        for notify: Set<IPONotification> in [[.opens, .last_day], Set(IPONotification.allCases), [.last_day]] {
            let walked = try Self.walk(Self.offering(), days: ["2024-01-04", "2024-01-04", "2024-01-04"], notify: notify)
            #expect(walked[0].1 == [SubscriptionStateMachine.Notice(notification: .last_day, state: .last_day, previousState: nil, catchUp: true)])
            #expect(walked[1].1.isEmpty && walked[2].1.isEmpty)
        }
        // With only `opens` configured the catch-up is an `opens` (status last_day), once.
        let opensOnly = try Self.walk(Self.offering(), days: ["2024-01-04", "2024-01-04"], notify: [.opens])
        #expect(opensOnly[0].1 == [SubscriptionStateMachine.Notice(notification: .opens, state: .last_day, previousState: nil, catchUp: true)])
        #expect(opensOnly[1].1.isEmpty)
        // Back on the last day after missing the whole opening: one `last_day`, marked as a catch-up.
        let late = try Self.walk(Self.offering(), days: ["2023-12-31", "2024-01-04"], notify: [.opens, .last_day])
        #expect(late[1].1 == [SubscriptionStateMachine.Notice(notification: .last_day, state: .last_day, previousState: .upcoming, catchUp: true)])
    }

    @Test func aReloadThatAddsLastDayDoesNotNotifyTheLastDayAgain() throws {
        let today = try Self.day("2024-01-04")
        var (machine, notices) = SubscriptionStateMachine.start(offering: Self.offering(), today: today, notify: [.opens])
        #expect(notices.map(\.state) == [.last_day])
        #expect(machine.observe(offering: Self.offering(), today: today, notify: [.opens, .last_day]).isEmpty)
    }

    /// Every notify set (without `lottery_day`, which is not a transition) × every set of days observed from
    /// 2023-12-30 to 2024-01-09 (gaps are downtime): no (status) twice for the key, at most one notice per
    /// observation, and a window observed while open (with `opens`), or on its last day (with `last_day`), is never silent.
    @Test func exactlyOneNotificationPerStateWhateverTheDowntime() throws {
        let calendarDays = try (0..<11).map { try #require(Self.day("2023-12-30").adding(days: $0)) }
        let kinds: [IPONotification] = [.announced, .opens, .last_day, .closed]
        let offering = Self.offering(lottery: nil)
        var walks = 0
        for kindMask in 0..<(1 << kinds.count) {
            let notify = Set(kinds.indices.filter { kindMask & (1 << $0) != 0 }.map { kinds[$0] })
            for dayMask in 1..<(1 << calendarDays.count) {
                let days = calendarDays.indices.filter { dayMask & (1 << $0) != 0 }.map { calendarDays[$0].iso }
                let walked = try Self.walk(offering, days: days, notify: notify)
                let statuses = walked.flatMap(\.1).map { $0.notification == .announced ? "announced" : $0.state.rawValue }
                #expect(Set(statuses).count == statuses.count, "\(notify) \(days): \(statuses)")
                #expect(walked.allSatisfy { $0.1.count <= 1 }, "\(notify) \(days)")
                let sawOpen = days.contains { ["2024-01-02", "2024-01-03", "2024-01-04"].contains($0) }
                if (sawOpen && notify.contains(.opens)) || (days.contains("2024-01-04") && notify.contains(.last_day)) {
                    #expect(statuses.contains { $0 == "open" || $0 == "last_day" }, "\(notify) \(days)")
                }
                walks += 1
            }
        }
        #expect(walks == 16 * 2047)
    }

    @Test func closedWindowsGetNoCatchUp() throws {
        let all = Set(IPONotification.allCases)
        // Seen upcoming, down until two days after the end: nothing (not even `closed`).
        let walked = try Self.walk(Self.offering(), days: ["2024-01-01", "2024-01-06"], notify: all.subtracting([.announced]))
        #expect(walked[1].1.isEmpty)
        // Never seen before and already closed: nothing, not even `announced`.
        let fresh = try Self.walk(Self.offering(), days: ["2024-01-05"], notify: all)
        #expect(fresh[0].1.isEmpty)
        // Seen upcoming, back on the closing day: `closed` (a transition we knew the window before).
        let closing = try Self.walk(Self.offering(), days: ["2024-01-01", "2024-01-05"], notify: [.closed])
        #expect(closing[1].1.map(\.notification) == [.closed])
        // On the lottery day the draw is still news.
        let lottery = try Self.walk(Self.offering(), days: ["2024-01-08"], notify: all)
        #expect(lottery[0].1.map(\.notification) == [.lottery_day])
    }

    @Test func singleDayWindowOpensOnItsLastDay() throws {
        let walked = try Self.walk(Self.offering(start: "2024-01-02", end: "2024-01-02"), days: ["2024-01-01", "2024-01-02", "2024-01-03"], notify: [.opens, .last_day, .closed])
        #expect(walked[1].1.map(\.notification) == [.last_day])
        #expect(walked[1].1.first?.catchUp == false)
        #expect(walked[2].1.map(\.notification) == [.closed])
    }

    @Test func aMovedEndDateNotifiesTheNewLastDay() throws {
        var machine = SubscriptionStateMachine.start(offering: Self.offering(), today: try Self.day("2024-01-01"), notify: [.last_day]).machine
        #expect(machine.observe(offering: Self.offering(), today: try Self.day("2024-01-04"), notify: [.last_day]).count == 1)
        let postponed = Self.offering(end: "2024-01-05")
        #expect(machine.observe(offering: postponed, today: try Self.day("2024-01-04"), notify: [.last_day]).isEmpty)
        #expect(machine.state == .open)
        #expect(machine.observe(offering: postponed, today: try Self.day("2024-01-05"), notify: [.last_day]).map(\.notification) == [.last_day])
    }

    @Test func unknownDatesOnlyAnnounce() throws {
        var offering = Self.offering(lottery: nil)
        offering.subscriptionEnd = nil
        let walked = try Self.walk(offering, days: ["2024-01-01", "2024-01-02", "2024-01-04", "2024-01-05"], notify: Set(IPONotification.allCases))
        #expect(walked.flatMap(\.1).map(\.notification) == [.announced])
        #expect(walked[0].1.first?.state == .unknown)
    }

    @Test func notificationsNotConfiguredAreNotSent() throws {
        let walked = try Self.walk(Self.offering(), days: ["2024-01-01", "2024-01-02", "2024-01-04", "2024-01-05", "2024-01-08"], notify: [])
        #expect(walked.allSatisfy { $0.1.isEmpty })
    }

    @Test func survivesAJSONRoundTrip() throws {
        var machine = SubscriptionStateMachine.start(offering: Self.offering(), today: try Self.day("2024-01-01"), notify: [.opens]).machine
        _ = machine.observe(offering: Self.offering(), today: try Self.day("2024-01-02"), notify: [.opens])
        let decoded = try JSONDecoder().decode(SubscriptionStateMachine.self, from: JSONEncoder().encode(machine))
        #expect(decoded == machine)
        var restarted = decoded
        #expect(restarted.observe(offering: Self.offering(), today: try Self.day("2024-01-02"), notify: [.opens]).isEmpty)
    }
}
