import Foundation
import MarketAlertCore
import Testing

/// Every printed instant (events, the API, the store) goes through `Timestamp.rfc3339`: one rounding to the
/// millisecond, so stdout and `/api/v1/alerts` can never disagree on an event's time.
@Suite struct TimestampTests {
    static let base = 1_795_428_000.0  // 2026-11-23T10:00:00Z

    @Test func wholeSecondsHaveNoFraction() {
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: Self.base)) == "2026-11-23T10:00:00Z")
    }

    @Test func millisecondsAreRoundedNotTruncated() {
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: Self.base + 0.125)) == "2026-11-23T10:00:00.125Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: Self.base + 0.0004)) == "2026-11-23T10:00:00Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: Self.base + 0.0016)) == "2026-11-23T10:00:00.002Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: Self.base + 0.07)) == "2026-11-23T10:00:00.070Z")
    }

    @Test func justBeforeASecondRoundsIntoIt() {
        // Formatting without rounding first printed 07:20:00Z here: a whole second early.
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: Self.base + 0.9996)) == "2026-11-23T10:00:01Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: Self.base - 0.0004)) == "2026-11-23T10:00:00Z")
    }

    @Test func printedTextParsesBackToTheRoundedInstant() throws {
        for offset in [0.001, 0.123, 0.5, 0.999, 59.9994] {
            let text = Timestamp.rfc3339(Date(timeIntervalSince1970: Self.base + offset))
            let parsed = try #require(Timestamp.parseRFC3339(text))
            #expect(abs(parsed.timeIntervalSince1970 - (Self.base + (offset * 1000).rounded() / 1000)) < 1e-6, "\(text)")
            #expect(Timestamp.rfc3339(parsed) == text)
        }
    }

    @Test func beforeTheEpoch() {
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
    }
}
