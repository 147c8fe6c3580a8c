import Foundation
import Testing
@testable import MarketAlertCore

/// The configured chain dunamu → openexchangerates → frankfurter, max_age 15m, at chosen instants:
/// a weekday morning in Seoul, a Saturday, and a weeknight (00:00–09:00 KST).
@Suite("FX failover")
struct FXFailoverTests {
    typealias T = FXTestTimes
    let failover = FXFailover(
        chain: [.standard(.dunamu), .standard(.openexchangerates), .standard(.frankfurter)],
        currencies: ["KRW"], maxAge: .seconds(15 * 60))

    // Weekday: Tuesday 2026-03-10 11:00 KST.
    let weekday = T.kst("2026-03-10", "11:00:00")
    // Weekend: Saturday 2026-03-07 14:00 KST (05:00Z).
    let saturday = T.kst("2026-03-07", "14:00:00")
    // Night: Wednesday 2026-03-11 03:00 KST (Tuesday 18:00Z).
    let night = T.kst("2026-03-11", "03:00:00")

    func book(_ rates: [FXRate], at now: Date) -> FXRateBook {
        var book = FXRateBook()
        for rate in rates {
            guard let kind = FXProviderKind(rawValue: rate.provider) else { continue }
            book.recordSuccess(kind, rates: [rate], at: now)
        }
        return book
    }

    var fridayECB: FXRate { T.rate(.frankfurter, "1448.1", at: FXQuoteTime.ecbReferenceTime(date: "2026-03-06") ?? .distantPast) }

    // MARK: Selection

    @Test("Weekday: a fresh Dunamu rate wins over the others")
    func weekdayDunamu() {
        let rates = [
            T.rate(.dunamu, "1395.5", at: T.kst("2026-03-10", "10:58:00")),
            T.rate(.openexchangerates, "1394", at: T.utc("2026-03-10", "02:00:00")),
            T.rate(.frankfurter, "1392", at: FXQuoteTime.ecbReferenceTime(date: "2026-03-09") ?? .distantPast),
        ]
        let selected = failover.select(book(rates, at: weekday), now: weekday)
        #expect(selected["KRW"]?.provider == "dunamu")
        #expect(selected["KRW"]?.rate == Price("1395.5"))
    }

    @Test("Weekend: Dunamu's Friday rate is stale, OpenExchangeRates is used")
    func weekendOXR() {
        let rates = [
            T.rate(.dunamu, "1449", at: T.kst("2026-03-06", "23:59:00")),
            T.rate(.openexchangerates, "1450.25", at: T.utc("2026-03-07", "05:00:00")),
            fridayECB,
        ]
        #expect(failover.select(book(rates, at: saturday), now: saturday)["KRW"]?.provider == "openexchangerates")
    }

    @Test("Night in Seoul: Dunamu has not moved since before midnight, OpenExchangeRates is used")
    func nightOXR() {
        let rates = [
            T.rate(.dunamu, "1401", at: T.kst("2026-03-10", "23:58:00")),
            T.rate(.openexchangerates, "1402.3", at: T.utc("2026-03-10", "18:00:00")),
        ]
        #expect(failover.select(book(rates, at: night), now: night)["KRW"]?.provider == "openexchangerates")
    }

    @Test("OpenExchangeRates missing or stale: Frankfurter's Friday ECB rate is used on the weekend")
    func weekendFrankfurter() {
        let dunamu = T.rate(.dunamu, "1449", at: T.kst("2026-03-06", "23:59:00"))
        let missing = failover.select(book([dunamu, fridayECB], at: saturday), now: saturday)
        #expect(missing["KRW"]?.provider == "frankfurter")
        // 02:00Z rate at 05:00Z: its successor was due at 03:00Z, more than max_age ago.
        let staleOXR = T.rate(.openexchangerates, "1450", at: T.utc("2026-03-07", "02:00:00"))
        let stale = failover.select(book([dunamu, staleOXR, fridayECB], at: saturday), now: saturday)
        #expect(stale["KRW"]?.provider == "frankfurter")
    }

    @Test("No fresh rate anywhere: the currency is absent")
    func noneFresh() {
        // Tuesday 2026-03-10 17:00 CET: Monday's ECB rate was due at 16:00, Friday's is stale; Dunamu and
        // OpenExchangeRates have nothing recent either.
        let now = T.berlin("2026-03-10", "17:00:00")
        let rates = [
            T.rate(.dunamu, "1449", at: T.kst("2026-03-10", "23:00:00").addingTimeInterval(-86_400)),
            T.rate(.openexchangerates, "1450", at: T.utc("2026-03-10", "10:00:00")),
            fridayECB,
        ]
        let selected = failover.select(book(rates, at: now), now: now)
        #expect(selected.isEmpty)
        #expect(failover.select(FXRateBook(), now: now).isEmpty)
    }

    @Test("Each currency walks the chain on its own; USD is never needed")
    func perCurrency() {
        let failover = FXFailover(chain: self.failover.chain, currencies: ["KRW", "JPY", "USD", "TWD"], maxAge: .seconds(900))
        #expect(failover.currencies == ["KRW", "JPY", "TWD"])
        let rates = [
            T.rate(.dunamu, "1395.5", at: T.kst("2026-03-10", "10:58:00")),
            T.rate(.frankfurter, "147.2", quote: "JPY", at: FXQuoteTime.ecbReferenceTime(date: "2026-03-09") ?? .distantPast),
        ]
        let selected = failover.select(book(rates, at: weekday), now: weekday)
        #expect(selected["KRW"]?.provider == "dunamu")
        #expect(selected["JPY"]?.provider == "frankfurter")
        #expect(selected["TWD"] == nil)
    }

    // MARK: Poll plan

    @Test("Weekday: Dunamu is called and, once fresh, nothing else is")
    func planWeekday() {
        var book = FXRateBook()
        #expect(failover.nextCall(book, attempted: [], now: weekday) == FXProviderCall(kind: .dunamu, currencies: ["KRW"]))
        book.recordSuccess(.dunamu, rates: [T.rate(.dunamu, "1395.5", at: T.kst("2026-03-10", "10:59:30"))], at: weekday)
        #expect(failover.nextCall(book, attempted: [.dunamu], now: weekday) == nil)
        // The next poll calls Dunamu again (its quotes move continuously).
        #expect(failover.nextCall(book, attempted: [], now: weekday.addingTimeInterval(60))?.kind == .dunamu)
    }

    @Test("Weekend: Dunamu is stale, so OpenExchangeRates is called, then the walk stops before Frankfurter")
    func planWeekend() {
        var book = FXRateBook()
        book.recordSuccess(.dunamu, rates: [T.rate(.dunamu, "1449", at: T.kst("2026-03-06", "23:59:00"))], at: saturday)
        #expect(failover.nextCall(book, attempted: [.dunamu], now: saturday)?.kind == .openexchangerates)
        book.recordSuccess(.openexchangerates, rates: [T.rate(.openexchangerates, "1450.25", at: T.utc("2026-03-07", "05:00:00"))], at: saturday)
        #expect(failover.nextCall(book, attempted: [.dunamu, .openexchangerates], now: saturday) == nil)
    }

    @Test("OpenExchangeRates is not called while its last rate is current, and is once the next hour is due")
    func planOXRCurrent() {
        var book = FXRateBook()
        let oxrFetched = T.utc("2026-03-07", "05:00:30")
        book.recordSuccess(.openexchangerates, rates: [T.rate(.openexchangerates, "1450.25", at: T.utc("2026-03-07", "05:00:00"))], at: oxrFetched)
        book.recordSuccess(.dunamu, rates: [T.rate(.dunamu, "1449", at: T.kst("2026-03-06", "23:59:00"))], at: oxrFetched)
        for minutes in stride(from: 1, through: 59, by: 1) {
            let now = oxrFetched.addingTimeInterval(Double(minutes * 60))
            #expect(failover.nextCall(book, attempted: [.dunamu], now: now) == nil, "called at +\(minutes)m")
        }
        let due = T.utc("2026-03-07", "06:00:30")
        #expect(failover.nextCall(book, attempted: [.dunamu], now: due)?.kind == .openexchangerates)
    }

    @Test("OpenExchangeRates is asked at most every 15 minutes even when its rate is overdue")
    func planOXRMinimumInterval() {
        var book = FXRateBook()
        let dunamu = T.rate(.dunamu, "1449", at: T.kst("2026-03-06", "23:59:00"))
        // Asked at 06:00:30, OXR still served the 05:00 rate (fresh until 06:15, not current).
        let asked = T.utc("2026-03-07", "06:00:30")
        book.recordSuccess(.openexchangerates, rates: [T.rate(.openexchangerates, "1450.25", at: T.utc("2026-03-07", "05:00:00"))], at: asked)
        book.recordSuccess(.dunamu, rates: [dunamu], at: asked)
        // 06:10: not allowed to ask again, but the held rate is still fresh: nothing else is called either.
        #expect(failover.nextCall(book, attempted: [.dunamu], now: T.utc("2026-03-07", "06:10:00")) == nil)
        // 06:15:20: the held rate went stale, OXR may not be asked yet: Frankfurter is.
        #expect(failover.nextCall(book, attempted: [.dunamu], now: T.utc("2026-03-07", "06:15:20"))?.kind == .frankfurter)
        // 06:15:30: allowed again.
        #expect(failover.nextCall(book, attempted: [.dunamu], now: T.utc("2026-03-07", "06:15:30"))?.kind == .openexchangerates)
    }

    @Test("A provider in backoff is skipped; the next one is called instead")
    func planBackoff() {
        var book = FXRateBook()
        book.recordFailure(.dunamu, at: weekday, delay: .seconds(120))
        #expect(failover.nextCall(book, attempted: [], now: weekday.addingTimeInterval(60))?.kind == .openexchangerates)
        #expect(failover.nextCall(book, attempted: [], now: weekday.addingTimeInterval(120))?.kind == .dunamu)
        book.recordFailure(.openexchangerates, at: weekday, delay: .seconds(1800))
        #expect(failover.nextCall(book, attempted: [], now: weekday.addingTimeInterval(60))?.kind == .frankfurter)
        #expect(failover.nextCall(book, attempted: [.frankfurter], now: weekday.addingTimeInterval(60)) == nil)
    }

    @Test("Frankfurter is not called over the weekend while Friday's rate is current")
    func planFrankfurterWeekend() {
        var book = FXRateBook()
        book.recordSuccess(.frankfurter, rates: [fridayECB], at: T.berlin("2026-03-06", "16:30:00"))
        book.recordFailure(.dunamu, at: saturday, delay: .seconds(60))
        book.recordFailure(.openexchangerates, at: saturday, delay: .seconds(60))
        #expect(failover.nextCall(book, attempted: [], now: saturday) == nil)
        #expect(failover.select(book, now: saturday)["KRW"]?.provider == "frankfurter")
    }

    @Test("A call asks the provider for every needed currency it serves")
    func planCurrencies() {
        let failover = FXFailover(chain: self.failover.chain, currencies: ["KRW", "JPY", "TWD"], maxAge: .seconds(900))
        var book = FXRateBook()
        #expect(failover.nextCall(book, attempted: [], now: weekday) == FXProviderCall(kind: .dunamu, currencies: ["KRW"]))
        book.recordSuccess(.dunamu, rates: [T.rate(.dunamu, "1395.5", at: weekday)], at: weekday)
        #expect(failover.nextCall(book, attempted: [.dunamu], now: weekday) == FXProviderCall(kind: .openexchangerates, currencies: ["KRW", "JPY", "TWD"]))
        #expect(failover.nextCall(book, attempted: [.dunamu, .openexchangerates], now: weekday) == FXProviderCall(kind: .frankfurter, currencies: ["KRW", "JPY"]))
        #expect(failover.nextCall(book, attempted: [.dunamu, .openexchangerates, .frankfurter], now: weekday) == nil)
    }

    @Test("The book keeps the newer rate and only USD rates of the recording provider")
    func bookKeepsNewer() {
        var book = FXRateBook()
        let newer = T.rate(.dunamu, "1396", at: T.kst("2026-03-10", "10:59:00"))
        let older = T.rate(.dunamu, "1390", at: T.kst("2026-03-10", "10:00:00"))
        book.recordSuccess(.dunamu, rates: [newer], at: weekday)
        book.recordSuccess(.dunamu, rates: [older, T.rate(.openexchangerates, "150", quote: "JPY", at: weekday)], at: weekday)
        #expect(book.state(.dunamu).rates == ["KRW": newer])
        #expect(book.state(.dunamu).consecutiveFailures == 0)
        book.recordFailure(.dunamu, at: weekday, delay: .seconds(60))
        book.recordFailure(.dunamu, at: weekday, delay: .seconds(120))
        #expect(book.state(.dunamu).consecutiveFailures == 2)
        #expect(book.state(.dunamu).retryNotBefore == weekday.addingTimeInterval(120))
        #expect(book.state(.dunamu).rates == ["KRW": newer])
    }
}
