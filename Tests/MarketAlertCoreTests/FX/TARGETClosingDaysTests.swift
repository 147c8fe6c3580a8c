import Foundation
import Testing
@testable import MarketAlertCore

/// The ECB publishes no reference rates on TARGET closing days: a rate is not overdue over them.
@Suite struct TARGETClosingDaysTests {
    /// Easter Sundays as published (Western churches), across the algorithm's century terms.
    @Test(arguments: [
        (1961, 4, 2), (2000, 4, 23), (2008, 3, 23), (2011, 4, 24), (2019, 4, 21), (2024, 3, 31), (2025, 4, 20),
        (2026, 4, 5), (2027, 3, 28), (2038, 4, 25), (2100, 3, 28),
    ])
    func easterSundays(year: Int, month: Int, day: Int) {
        #expect(TARGETClosingDays.easterDate(year) == (month, day))
    }

    @Test func theSixClosingDaysOf2026AndNoOthers() throws {
        let calendar = try #require(FXQuoteTime.calendar(FXQuoteTime.ecbZoneID))
        let closing: Set<String> = ["2026-01-01", "2026-04-03", "2026-04-06", "2026-05-01", "2026-12-25", "2026-12-26"]
        var found: Set<String> = []
        var day = try #require(calendar.date(from: DateComponents(year: 2026, month: 1, day: 1)))
        for _ in 0..<365 {
            if TARGETClosingDays.contains(day, calendar: calendar) {
                let parts = calendar.dateComponents([.year, .month, .day], from: day)
                found.insert(String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0))
            }
            day = try #require(calendar.date(byAdding: .day, value: 1, to: day))
        }
        #expect(found == closing)
    }

    @Test func theNextPublicationSkipsClosingDays() throws {
        func next(after date: String) throws -> String {
            let quoted = try #require(FXQuoteTime.ecbReferenceTime(date: date))
            return Timestamp.rfc3339(try #require(FXQuoteTime.ecbNextPublication(after: quoted)))
        }
        // Maundy Thursday 2026 → Tuesday after Easter, 16:00 CEST.
        #expect(try next(after: "2026-04-02") == "2026-04-07T14:00:00Z")
        // Labour Day on a Friday → Monday.
        #expect(try next(after: "2026-04-30") == "2026-05-04T14:00:00Z")
        // Christmas Eve (a Thursday; itself a business day) → Monday 28th, 16:00 CET.
        #expect(try next(after: "2026-12-24") == "2026-12-28T15:00:00Z")
        // New Year's Eve → Monday 4 January 2027 (1 January is a Friday).
        #expect(try next(after: "2026-12-31") == "2027-01-04T15:00:00Z")
        // An ordinary week is unchanged.
        #expect(try next(after: "2026-03-10") == "2026-03-11T15:00:00Z")
    }

    @Test func aThursdaysRateIsFreshOverEaster() throws {
        let profile = FXProviderProfile.standard(.frankfurter)
        let thursday = try #require(FXQuoteTime.ecbReferenceTime(date: "2026-04-02"))
        let rate = FXRate(base: "EUR", quote: "KRW", rate: try #require(Price("1500")), provider: "frankfurter", at: thursday)
        // Easter Monday 2026-04-06 at 18:00 Frankfurt time (16:00Z): no newer rate can exist yet.
        let easterMonday = try #require(ISO8601DateFormatter().date(from: "2026-04-06T16:00:00Z"))
        #expect(profile.isCurrent(rate, now: easterMonday))
        #expect(profile.isFresh(rate, now: easterMonday, maxAge: .seconds(15 * 60)))
    }
}
