import Foundation
import MarketAlertCore
import Testing

@Suite("Failure log throttle")
struct FailureLogThrottleTests {
    /// 2026-03-10T09:12:00Z.
    static let start = Date(timeIntervalSince1970: 1_773_133_920)

    /// Feeds `error(second)` (nil: a success) once per virtual second for `seconds` and returns the lines.
    static func run(
        _ throttle: inout FailureLogThrottle, seconds: Int, from: Int = 0, error: (Int) -> String?
    ) -> [(Int, FailureLogThrottle.Line)] {
        var lines: [(Int, FailureLogThrottle.Line)] = []
        for second in from..<(from + seconds) {
            let now = start.addingTimeInterval(TimeInterval(second))
            let line = error(second).map { throttle.failure($0, now: now) } ?? throttle.success(now: now)
            if let line { lines.append((second, line)) }
        }
        return lines
    }

    @Test func sixtySecondsOfFailuresAtOnePerSecondLogOneLine() {
        var throttle = FailureLogThrottle(source: "binance")
        let lines = Self.run(&throttle, seconds: 60) { _ in "timeout" }
        #expect(lines.map(\.1.message) == ["binance failing: timeout"])
        #expect(lines.first?.1.level == .warning)
        #expect(throttle.isFailing)
    }

    @Test func anHourOfTheSameFailureLogsASummaryEveryTenMinutes() {
        var throttle = FailureLogThrottle(source: "binance")
        let lines = Self.run(&throttle, seconds: 3600) { _ in "timeout" }
        #expect(lines.map(\.0) == [0, 600, 1200, 1800, 2400, 3000])
        #expect(lines[1].1.message == "binance still failing: 601 attempts since 09:12 UTC, last: timeout")
        #expect(lines[5].1.message == "binance still failing: 3001 attempts since 09:12 UTC, last: timeout")
        let recovery = throttle.success(now: Self.start.addingTimeInterval(3612))
        #expect(recovery == FailureLogThrottle.Line(level: .notice, message: "binance recovered after 3600 failed attempts over 1h00m"))
        #expect(!throttle.isFailing)
        #expect(throttle.success(now: Self.start.addingTimeInterval(3613)) == nil)
    }

    @Test func aChangeOfErrorIsLoggedAtOnce() {
        var throttle = FailureLogThrottle(source: "okx")
        let lines = Self.run(&throttle, seconds: 700) { $0 < 30 ? "timeout" : "HTTP 503" }
        #expect(lines.map(\.0) == [0, 30, 630])
        #expect(lines[1].1.message == "okx failing with a new error after 30 attempts: HTTP 503 (was: timeout)")
        #expect(lines[2].1.message == "okx still failing: 631 attempts since 09:12 UTC, last: HTTP 503")
    }

    @Test func alternatingOrCountingErrorsStayBounded() {
        var alternating = FailureLogThrottle(source: "bybit")
        let flapping = Self.run(&alternating, seconds: 3600) { $0 % 2 == 0 ? "timeout" : "HTTP 502" }
        // First failure, one change (the second error is new once), then a summary every 10 minutes.
        #expect(flapping.map(\.0) == [0, 1, 601, 1201, 1801, 2401, 3001])
        var counting = FailureLogThrottle(source: "kraken")
        let unique = Self.run(&counting, seconds: 3600) { "request \($0) failed" }
        // At most 3 change lines per 10 minutes, the rest folded into the summary.
        #expect(unique.count == 1 + 3 + 5 * 4)
        #expect(unique[4].0 == 603)
        #expect(unique[4].1.message == "kraken still failing: 604 attempts since 09:12 UTC, 604 different errors, last: request 603 failed")
    }

    @Test func recoveryAfterAShortStreakAndANewStreak() {
        var throttle = FailureLogThrottle(source: "upbit")
        let lines = Self.run(&throttle, seconds: 1000) { second in
            switch second {
            case 0..<612: "timeout"
            case 612..<900: nil
            default: "HTTP 429\nretry later"
            }
        }
        #expect(lines.map(\.1.message) == [
            "upbit failing: timeout",
            "upbit still failing: 601 attempts since 09:12 UTC, last: timeout",
            "upbit recovered after 612 failed attempts over 10m12s",
            "upbit failing: HTTP 429 retry later",
        ])
        #expect(lines.map(\.1.level) == [.warning, .warning, .notice, .warning])
    }

    @Test func aStreakAcrossMidnightSaysTheDay() {
        var throttle = FailureLogThrottle(source: "dunamu")
        let lateEvening = Date(timeIntervalSince1970: 1_773_187_080)  // 2026-03-10T23:58:00Z
        _ = throttle.failure("timeout", now: lateEvening)
        let line = throttle.failure("timeout", now: lateEvening.addingTimeInterval(600))
        #expect(line?.message == "dunamu still failing: 2 attempts since 2026-03-10 23:58 UTC, last: timeout")
    }
}
