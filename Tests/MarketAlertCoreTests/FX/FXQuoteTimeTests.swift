import Foundation
import Testing
@testable import MarketAlertCore

@Suite("FX quote times")
struct FXQuoteTimeTests {
    @Test("Dunamu's KST date/time is 9 hours ahead of UTC")
    func seoulLocalTime() throws {
        let at = try #require(FXQuoteTime.local(date: "2021-08-13", time: "20:01:49", zoneID: FXQuoteTime.seoulZoneID))
        #expect(Timestamp.rfc3339(at) == "2021-08-13T11:01:49Z")
        // Past midnight KST is still the previous day in UTC.
        let early = try #require(FXQuoteTime.local(date: "2026-03-10", time: "08:30", zoneID: FXQuoteTime.seoulZoneID))
        #expect(Timestamp.rfc3339(early) == "2026-03-09T23:30:00Z")
    }

    @Test("Times that do not exist are rejected, not normalised", arguments: [
        ("2021-02-30", "10:00:00"), ("2021-13-01", "10:00:00"), ("2021-08-13", "24:00:00"), ("2021-08-13", "20:61:00"),
        ("21-08-13", "10:00:00"), ("2021-08-13", "+1:00:00"), ("2021-08-13", ""), ("", "10:00:00"), ("2021/08/13", "10:00:00"),
    ])
    func invalidLocalTimes(date: String, time: String) {
        #expect(FXQuoteTime.local(date: date, time: time, zoneID: FXQuoteTime.seoulZoneID) == nil)
    }

    @Test("ECB reference time is 14:15 Frankfurt time, CET in winter and CEST in summer")
    func ecbReferenceTime() throws {
        #expect(try Timestamp.rfc3339(#require(FXQuoteTime.ecbReferenceTime(date: "2025-01-10"))) == "2025-01-10T13:15:00Z")
        #expect(try Timestamp.rfc3339(#require(FXQuoteTime.ecbReferenceTime(date: "2025-04-11"))) == "2025-04-11T12:15:00Z")
        #expect(FXQuoteTime.ecbReferenceTime(date: "2025-04-31") == nil)
    }

    @Test("The next ECB publication skips the weekend")
    func ecbNextPublication() throws {
        let friday = try #require(FXQuoteTime.ecbReferenceTime(date: "2026-03-06"))
        #expect(try Timestamp.rfc3339(#require(FXQuoteTime.ecbNextPublication(after: friday))) == "2026-03-09T15:00:00Z")
        let tuesday = try #require(FXQuoteTime.ecbReferenceTime(date: "2026-03-10"))
        #expect(try Timestamp.rfc3339(#require(FXQuoteTime.ecbNextPublication(after: tuesday))) == "2026-03-11T15:00:00Z")
        // Across the switch to summer time (29 March 2026): Friday 27th → Monday 30th 16:00 CEST = 14:00Z.
        let beforeDST = try #require(FXQuoteTime.ecbReferenceTime(date: "2026-03-27"))
        #expect(try Timestamp.rfc3339(#require(FXQuoteTime.ecbNextPublication(after: beforeDST))) == "2026-03-30T14:00:00Z")
    }

    @Test("Display uses the zone's wall clock")
    func display() throws {
        let at = try #require(FXQuoteTime.local(date: "2026-03-10", time: "11:00:00", zoneID: FXQuoteTime.seoulZoneID))
        #expect(FXQuoteTime.display(at, zoneID: FXQuoteTime.seoulZoneID) == "2026-03-10 11:00")
        #expect(FXQuoteTime.display(at, zoneID: "UTC") == "2026-03-10 02:00")
    }
}

@Suite("FX provider freshness")
struct FXProviderProfileTests {
    let maxAge = Duration.seconds(15 * 60)

    @Test("Dunamu: fresh while no older than max_age")
    func dunamu() {
        let profile = FXProviderProfile.standard(.dunamu)
        let rate = FXTestTimes.rate(.dunamu, "1395.5", at: FXTestTimes.kst("2026-03-10", "10:50:00"))
        #expect(profile.isFresh(rate, now: FXTestTimes.kst("2026-03-10", "11:05:00"), maxAge: maxAge))
        #expect(!profile.isFresh(rate, now: FXTestTimes.kst("2026-03-10", "11:05:01"), maxAge: maxAge))
        #expect(!profile.isCurrent(rate, now: FXTestTimes.kst("2026-03-10", "10:50:00")))
        #expect(profile.serves("KRW") && !profile.serves("JPY"))
    }

    @Test("OpenExchangeRates: fresh until max_age after the next hourly publication, current until it")
    func openExchangeRates() {
        let profile = FXProviderProfile.standard(.openexchangerates)
        let rate = FXTestTimes.rate(.openexchangerates, "1450", at: FXTestTimes.utc("2026-03-07", "05:00:00"))
        #expect(profile.isCurrent(rate, now: FXTestTimes.utc("2026-03-07", "05:59:59")))
        #expect(!profile.isCurrent(rate, now: FXTestTimes.utc("2026-03-07", "06:00:00")))
        #expect(profile.isFresh(rate, now: FXTestTimes.utc("2026-03-07", "06:15:00"), maxAge: maxAge))
        #expect(!profile.isFresh(rate, now: FXTestTimes.utc("2026-03-07", "06:15:01"), maxAge: maxAge))
        #expect(profile.serves("TWD"))
    }

    @Test("Frankfurter: Friday's ECB rate stays fresh over the weekend until Monday 16:00 CET + max_age")
    func frankfurter() throws {
        let profile = FXProviderProfile.standard(.frankfurter)
        let friday = try #require(FXQuoteTime.ecbReferenceTime(date: "2026-03-06"))
        let rate = FXTestTimes.rate(.frankfurter, "1448", at: friday)
        #expect(profile.isFresh(rate, now: FXTestTimes.berlin("2026-03-08", "23:00:00"), maxAge: maxAge))
        #expect(profile.isCurrent(rate, now: FXTestTimes.berlin("2026-03-09", "15:59:00")))
        #expect(!profile.isCurrent(rate, now: FXTestTimes.berlin("2026-03-09", "16:00:00")))
        #expect(profile.isFresh(rate, now: FXTestTimes.berlin("2026-03-09", "16:15:00"), maxAge: maxAge))
        #expect(!profile.isFresh(rate, now: FXTestTimes.berlin("2026-03-09", "16:15:01"), maxAge: maxAge))
        #expect(profile.serves("KRW") && !profile.serves("TWD"))
    }

    @Test("A rate quoted further in the future than max_age is not fresh")
    func futureRate() {
        let profile = FXProviderProfile.standard(.dunamu)
        let now = FXTestTimes.kst("2026-03-10", "11:00:00")
        let soon = FXTestTimes.rate(.dunamu, "1395.5", at: now.addingTimeInterval(60))
        let bogus = FXTestTimes.rate(.dunamu, "1395.5", at: now.addingTimeInterval(86_400))
        #expect(profile.isFresh(soon, now: now, maxAge: maxAge))
        #expect(!profile.isFresh(bogus, now: now, maxAge: maxAge))
    }
}
