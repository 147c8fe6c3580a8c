import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The IPO poller and the engine's subscription state machines, through the runtime, against a real HTTP
/// server on 127.0.0.1 and a real (in-memory) SQLite store, in virtual time.
@Suite("IPO poller and engine")
struct IPOPollerTests {
    static let path = "/rwd/zh/announcement/publicForm"

    /// One test's world: server, clock, store, sink.
    struct World {
        let server: MockHTTPServer
        let clock: ManualClock
        let store: SQLiteStore
        let sink = RecordingSink()

        init(now: String) async throws {
            server = try await MockHTTPServer()
            clock = ManualClock(now: IPOTestKit.instant(now))
            store = try SQLiteStore(inMemory: ())
        }

        func settings(notify: Set<IPONotification>) -> Settings {
            var settings = Settings()
            settings.ipo = IPOTestKit.settings(server, notify: notify)
            return settings
        }

        var factory: ProducerFactory {
            let clock = clock
            return ProducerFactory(quoteSource: { _ in nil }, ipoPoller: { source, ipo in
                IPOPoller(
                    settings: source, excludeNamePatterns: ipo.excludeNamePatterns, fetcher: IPOTestKit.fetcher(clock), clock: clock,
                    logger: IPOTestKit.quietLogger, random: { 0.5 })
            })
        }

        /// Starts the runtime and returns once it has polled, evaluated and gone to sleep.
        func start(notify: Set<IPONotification> = [.opens, .last_day], store: SQLiteStore? = nil) async throws -> RuntimeHarness {
            try await RuntimeHarness.start(
                settings: settings(notify: notify), store: store ?? self.store, factory: factory, clock: clock, sink: sink)
        }

        func snapshot(_ world: RuntimeHarness) async -> [IPOOfferingStatus] {
            let now = clock.now()
            return await world.runtime.loop.snapshot { $0.ipoSnapshot(now: now) }
        }

        func health(_ world: RuntimeHarness) async -> SourceHealth? { await world.runtime.loop.snapshot { $0.sourceHealth["twse"] } }

        /// Serves `payloads[yy]`, or TWSE's no-data answer for other years.
        func serve(_ payloads: [Int: String]) {
            server.route(IPOPollerTests.path) { request in
                guard let year = IPOTestKit.year(of: request), let body = payloads[year] else { return .json(IPOTestKit.noData) }
                return .json(body)
            }
        }

        /// 7795 長廣 opening `startIn` days after the clock's today (Taipei) for 3 days, lottery 4 days after the end,
        /// plus a government bond row that must be ignored. Returns the payload and the lottery year.
        func offeringPayload(startIn: Int = 1) throws -> (body: String, year: Int) {
            let today = clock.now()
            let lottery = try IPOTestKit.taipeiDay(today, plus: startIn + 6)
            let rows = [
                IPOTestKit.Row(
                    code: "7795", name: "長廣", start: try IPOTestKit.rocText(IPOTestKit.taipeiDay(today, plus: startIn)),
                    end: try IPOTestKit.rocText(IPOTestKit.taipeiDay(today, plus: startIn + 2)), lottery: try IPOTestKit.rocText(lottery)),
                IPOTestKit.Row(
                    code: "A151AA", name: "央債甲01", market: "中央登錄公債", start: try IPOTestKit.rocText(IPOTestKit.taipeiDay(today)),
                    end: try IPOTestKit.rocText(IPOTestKit.taipeiDay(today, plus: startIn + 2)), lottery: try IPOTestKit.rocText(lottery),
                    price: "99.678", finalPrice: "99.678"),
            ]
            return (try IPOTestKit.payload(rows), try #require(lottery.year))
        }

        func stop(_ world: RuntimeHarness) async { await world.stop() }

        func shutdown() async { await server.shutdown() }
    }

    static func timeline(_ events: [AlertEvent]) -> [String] {
        events.map { "\($0.status) \(Timestamp.rfc3339($0.at))" }
    }

    @Test func transitionsFireAtTheBoundaryInstants() async throws {
        let world = try await World(now: "2024-01-01T02:00:00Z")  // 10:00 on 1 Jan in Taipei
        let (body, year) = try world.offeringPayload()
        #expect(year == 2024)
        world.serve([year: body])
        let task = try await world.start(notify: Set(IPONotification.allCases))
        #expect(Self.timeline(world.sink.events) == ["announced 2024-01-01T02:00:00Z"])

        try await task.advance(to: IPOTestKit.instant("2024-01-09T00:00:00Z"))
        await world.stop(task)
        // Midnight in Taipei is 16:00 UTC of the previous day.
        #expect(Self.timeline(world.sink.events) == [
            "announced 2024-01-01T02:00:00Z", "open 2024-01-01T16:00:00Z", "last_day 2024-01-03T16:00:00Z",
            "closed 2024-01-04T16:00:00Z", "closed 2024-01-07T16:00:00Z",
        ])
        let events = world.sink.events
        #expect(events.allSatisfy { $0.key == "ipo/twse/7795/2024-01-02" && $0.kind == .ipo })
        #expect(events[1].summary == "IPO 7795 長廣 (初上市) opens today 2024-01-02 (Asia/Taipei), closes 2024-01-04, price 45.00 TWD")
        #expect(events[1].ipo?.previousState == .upcoming && events[1].ipo?.state == .open)
        #expect(events[4].summary.contains("lottery draw today 2024-01-08"))
        #expect(Set(events.map(\.id)).count == 5)
        // Polled every hour throughout (both 2024 and, in January, 2023), every poll a success.
        #expect(world.server.requests.count >= 190)
        #expect(Set(world.server.requests.compactMap(IPOTestKit.year(of:))) == [2023, 2024])
        // Nothing is left pending in the store.
        let stored = try await world.store.loadStates(kind: "ipo", as: IPOAlertState.self).states
        #expect(stored.keys.sorted() == ["ipo/twse/7795/2024-01-02"])
        #expect(stored.values.allSatisfy { $0.machine.state == .closed })
        #expect(try await world.store.pendingEvents().isEmpty)
        await world.shutdown()
    }

    @Test func restartMidWindowSendsNothingNew() async throws {
        let world = try await World(now: "2024-01-01T02:00:00Z")
        let (body, year) = try world.offeringPayload()
        world.serve([year: body])
        let first = try await world.start()
        try await first.advance(to: IPOTestKit.instant("2024-01-02T04:00:00Z"))
        await world.stop(first)
        #expect(Self.timeline(world.sink.events) == ["open 2024-01-01T16:00:00Z"])

        let second = try await world.start()  // same store
        #expect(world.sink.events.count == 1)
        try await second.advance(to: IPOTestKit.instant("2024-01-05T00:00:00Z"))
        await world.stop(second)
        #expect(Self.timeline(world.sink.events) == ["open 2024-01-01T16:00:00Z", "last_day 2024-01-03T16:00:00Z"])
        await world.shutdown()
    }

    @Test func catchUpAfterDowntimeSendsOpensOnce() async throws {
        let world = try await World(now: "2024-01-01T02:00:00Z")
        let (body, year) = try world.offeringPayload()
        world.serve([year: body])
        let first = try await world.start()
        await world.stop(first)
        #expect(world.sink.events.isEmpty)

        // Down across the opening midnight; back at 13:00 on 3 Jan in Taipei, while the window is open.
        await world.clock.advance(to: IPOTestKit.instant("2024-01-03T05:00:00Z"))
        let second = try await world.start()
        #expect(Self.timeline(world.sink.events) == ["open 2024-01-03T05:00:00Z"])
        #expect(world.sink.events.first?.summary
            == "IPO 7795 長廣 (初上市) subscription opened yesterday (2024-01-02, Asia/Taipei), closes tomorrow (2024-01-04), price 45.00 TWD")
        try await second.advance(to: IPOTestKit.instant("2024-01-03T10:00:00Z"))
        #expect(world.sink.events.count == 1)
        try await second.advance(to: IPOTestKit.instant("2024-01-04T00:00:00Z"))
        await world.stop(second)
        #expect(Self.timeline(world.sink.events) == ["open 2024-01-03T05:00:00Z", "last_day 2024-01-03T16:00:00Z"])

        // Back later on the opening day itself: still `opens`, worded as today's news.
        let sameDay = try await World(now: "2024-01-01T02:00:00Z")
        sameDay.serve([year: body])
        try await sameDay.stop(sameDay.start())
        await sameDay.clock.advance(to: IPOTestKit.instant("2024-01-02T05:00:00Z"))
        try await sameDay.stop(sameDay.start())
        #expect(Self.timeline(sameDay.sink.events) == ["open 2024-01-02T05:00:00Z"])
        #expect(sameDay.sink.events.first?.summary.hasPrefix("IPO 7795 長廣 (初上市) opens today 2024-01-02") == true)
        await sameDay.shutdown()
        await world.shutdown()
    }

    @Test func firstRunOnTheLastDayNotifiesOnce() async throws {
        // The defect: first seen on its last day, the offering got two `last_day` notifications (the catch-up
        // "open since …, closes today" and the last-day notice).
        let world = try await World(now: "2024-01-04T02:00:00Z")  // 10:00 on 4 Jan in Taipei
        let (body, year) = try world.offeringPayload(startIn: -2)  // 2 – 4 Jan
        world.serve([year: body])
        let task = try await world.start(notify: Set(IPONotification.allCases))
        try await task.advance(to: IPOTestKit.instant("2024-01-04T15:00:00Z"))
        await world.stop(task)
        #expect(Self.timeline(world.sink.events) == ["last_day 2024-01-04T02:00:00Z"])
        #expect(world.sink.events.first?.summary
            == "IPO 7795 長廣 (初上市) subscription opened 2 days ago (2024-01-02, Asia/Taipei), last day today (2024-01-04), price 45.00 TWD")
        // A restart the same day adds nothing.
        let again = try await world.start(notify: Set(IPONotification.allCases))
        await world.stop(again)
        #expect(world.sink.events.count == 1)
        await world.shutdown()
    }

    @Test func closedWindowsGetNoCatchUp() async throws {
        let world = try await World(now: "2024-01-01T02:00:00Z")
        let (body, year) = try world.offeringPayload()
        world.serve([year: body])
        let notify = Set(IPONotification.allCases).subtracting([.announced])
        let first = try await world.start(notify: notify)
        await world.stop(first)

        // Down for the whole window (2–4 Jan) and the closing day; back on 6 Jan.
        await world.clock.advance(to: IPOTestKit.instant("2024-01-06T02:00:00Z"))
        let second = try await world.start(notify: notify)
        try await second.advance(to: IPOTestKit.instant("2024-01-07T12:00:00Z"))
        await world.stop(second)
        #expect(world.sink.events.isEmpty)

        // A daemon that never saw the window says nothing about it either, even with every notification on.
        let fresh = try SQLiteStore(inMemory: ())
        let third = try await world.start(notify: Set(IPONotification.allCases), store: fresh)
        await world.stop(third)
        #expect(world.sink.events.isEmpty)
        await world.shutdown()
    }

    @Test func windowAcrossTheNewYearIsSeen() async throws {
        let world = try await World(now: "2024-12-30T02:00:00Z")  // 10:00 on 30 Dec in Taipei
        let (body, year) = try world.offeringPayload()  // 31 Dec – 2 Jan, lottery 6 Jan: in the 2025 list
        #expect(year == 2025)
        world.serve([2025: body, 2024: try IPOTestKit.payload([])])
        let task = try await world.start()
        // In December the next year's list is asked for too, and that is where the window is.
        #expect(Set(world.server.requests.compactMap(IPOTestKit.year(of:))) == [2024, 2025])
        let rows = await world.snapshot(task)
        #expect(rows.map(\.key) == ["ipo/twse/7795/2024-12-31"] && rows.first?.state == .upcoming)

        try await task.advance(to: IPOTestKit.instant("2025-01-01T00:00:00Z"))
        world.server.clearRequests()
        try await task.advance(to: IPOTestKit.instant("2025-01-03T00:00:00Z"))
        await world.stop(task)
        #expect(Self.timeline(world.sink.events) == ["open 2024-12-30T16:00:00Z", "last_day 2025-01-01T16:00:00Z"])
        #expect(world.sink.events.first?.summary == "IPO 7795 長廣 (初上市) opens today 2024-12-31 (Asia/Taipei), closes 2025-01-02, price 45.00 TWD")
        // In January the previous year's list is still asked for.
        #expect(Set(world.server.requests.compactMap(IPOTestKit.year(of:))) == [2024, 2025])
        await world.shutdown()
    }

    @Test func failedPollsKeepTheLastGoodList() async throws {
        let world = try await World(now: "2024-01-01T02:00:00Z")
        let (body, year) = try world.offeringPayload()
        world.serve([year: body])
        let task = try await world.start()
        let before = await world.snapshot(task)
        #expect(before.map(\.code) == ["7795"] && before.first?.state == .upcoming)

        world.server.route(Self.path) { _ in
            MockHTTPServer.Response(status: 500, headers: [("Content-Type", "text/html")], body: Data("<html>維護中</html>".utf8))
        }
        try await task.advance(to: IPOTestKit.instant("2024-01-01T03:00:00Z"))
        #expect(await world.health(task)?.lastError?.contains("HTTP 500") == true)
        #expect(await world.snapshot(task).map(\.key) == before.map(\.key))

        world.server.route(Self.path) { _ in
            MockHTTPServer.Response(status: 200, headers: [("Content-Type", "text/html")], body: Data("<!DOCTYPE html><html></html>".utf8))
        }
        // The retry comes after a backoff (60 s for the first failure), not a full hour.
        #expect(world.clock.pendingDeadlines.first == IPOTestKit.instant("2024-01-01T03:01:00Z"))
        try await task.advance(to: IPOTestKit.instant("2024-01-01T03:01:00Z"))
        #expect(await world.health(task)?.consecutiveFailures == 2)
        #expect(await world.snapshot(task).map(\.key) == before.map(\.key))
        #expect(world.sink.events.isEmpty)

        // TWSE stays down, but the window still opens on time from the last good list; after three failed
        // polls in a row the source itself is reported.
        try await task.advance(to: IPOTestKit.instant("2024-01-01T16:00:00Z"))
        #expect(Self.timeline(world.sink.events.filter { $0.kind == .ipo }) == ["open 2024-01-01T16:00:00Z"])
        #expect(world.sink.keys(status: "firing").first == "source/twse")
        #expect(world.sink.events.first?.source?.consecutiveFailures == 3)
        #expect(await world.snapshot(task).first?.state == .open)
        await world.stop(task)
        await world.shutdown()
    }

    @Test func pendingNotificationsAreRedeliveredAfterACrash() async throws {
        let world = try await World(now: "2024-01-02T03:00:00Z")
        let (body, year) = try world.offeringPayload(startIn: 0)
        world.serve([year: body])
        // The state a crash left: `opens` counted as sent, its event written as pending, never delivered.
        let offering = IPOOffering(
            source: "twse", code: "7795", name: "長廣", market: "初上市", timeZone: "Asia/Taipei",
            subscriptionStart: CalendarDay(iso: "2024-01-02"), subscriptionEnd: CalendarDay(iso: "2024-01-04"),
            lotteryDate: CalendarDay(iso: "2024-01-08"), offerPrice: Decimal(45), finalPrice: Decimal(45), shares: 2_520_000,
            currency: "TWD")
        let today = try #require(CalendarDay(iso: "2024-01-02"))
        let (machine, notices) = SubscriptionStateMachine.start(offering: offering, today: today, notify: [.opens, .last_day])
        let notice = try #require(notices.first)
        let crashed = IPOEvents.event(id: "crashed-0001", offering: offering, notice: notice, today: today, now: IPOTestKit.instant("2024-01-01T16:00:00Z"))
        // Version 1 kept such events inside the IPO state row; the runtime publishes them once and rewrites
        // the row without them.
        struct Version1Row: Encodable {
            var machine: SubscriptionStateMachine
            var pending: [AlertEvent]
            var keepUntil: Date
        }
        let row = try JSONEncoder().encode(Version1Row(machine: machine, pending: [crashed], keepUntil: IPOTestKit.instant("2024-02-09T16:00:00Z")))
        try await world.store.commit(
            Publication(states: [StateRecord(key: offering.key, kind: "ipo", data: row)]), at: IPOTestKit.instant("2024-01-01T16:00:00Z"))

        let task = try await world.start()
        await world.stop(task)
        #expect(world.sink.events == [crashed])
        let stored = try await world.store.loadStates(kind: "ipo")
        #expect(stored[offering.key].map { String(decoding: $0, as: UTF8.self).contains("pending") } == false)
        #expect(try await world.store.loadStates(kind: "ipo", as: IPOAlertState.self).states[offering.key]?.machine.state == .open)
        #expect(try await world.store.pendingEvents().isEmpty)

        // A second start publishes nothing again.
        try await world.stop(world.start())
        #expect(world.sink.events == [crashed])
        await world.shutdown()
    }

    @Test func pollOnceAndSnapshot() async throws {
        let world = try await World(now: "2026-03-24T12:28:35Z")  // when the recorded payload was fetched
        world.server.route(Self.path) { request in
            IPOTestKit.year(of: request) == 2026
                ? .data((try? Fixtures.data("twse/publicForm-reconstructed.json")) ?? Data()) : .json(IPOTestKit.noData)
        }
        let runtime = await DataPathService.make(
            settings: world.settings(notify: [.opens, .last_day]), store: world.store, sinks: [world.sink], factory: world.factory,
            clock: world.clock, logger: IPOTestKit.quietLogger)
        await runtime.runOnce(world.settings(notify: [.opens, .last_day]))
        let now = world.clock.now()
        let rows = await runtime.loop.snapshot { $0.ipoSnapshot(now: now) }
        #expect(rows.count == 45)
        #expect(rows.filter(\.isOpen).map(\.code) == ["3322"])
        #expect(rows.first?.code == "6949" && rows.last?.code == "4169")  // by subscription start
        let taizong = try #require(rows.last)
        #expect(taizong.state == .upcoming && taizong.price == Decimal(102) && taizong.priceIsProvisional)
        // 3322 was open when first seen: `opens` as a catch-up, nothing for the closed ones.
        #expect(world.sink.events.map(\.key) == ["ipo/twse/3322/2026-03-23"])
        #expect(world.sink.events.first?.summary == "IPO 3322 建舜電 (上櫃增資) subscription opened yesterday (2026-03-23, Asia/Taipei), closes tomorrow (2026-03-25), price 11.13 TWD")
        #expect(try await world.store.loadStates(kind: "ipo", as: IPOAlertState.self).states.count == 45)
        await world.shutdown()
    }
}
