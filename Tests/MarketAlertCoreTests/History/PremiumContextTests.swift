import Foundation
import MarketAlertCore
import Testing

/// `premium.context` on constructed histories: percentile edges, the sample minimum, the window sliding out.
@Suite struct PremiumContextTests {
    static let start = Date(timeIntervalSince1970: 1_762_000_000 - 1_762_000_000.truncatingRemainder(dividingBy: 60))  // a minute boundary
    static let key = "premium/kimchi/BTC"

    /// History at 1 minute, kimchi/BTC with a `window` context window.
    static func history(window: Duration = .seconds(3600)) -> PremiumHistory {
        var settings = Settings()
        settings.history = HistorySettings(resolution: .seconds(60), retention: .seconds(86_400))
        var rule = PremiumRule(
            name: "kimchi", assets: ["BTC"], exchanges: ["upbit", "binance"], quotes: ["KRW", "USDT"], levels: PremiumRule.defaultLevels,
            clearPct: 0.04)
        rule.contextWindow = window
        settings.premium.rules = [rule]
        var history = PremiumHistory()
        history.configure(settings)
        return history
    }

    /// One sample per minute from `start` with these max pcts.
    static func samples(_ maxima: [Double], from: Date = start) -> [HistorySample] {
        maxima.enumerated().map { index, pct in
            HistorySample(rule: "kimchi", asset: "BTC", at: from.addingTimeInterval(Double(index) * 60), minPct: pct - 0.5, maxPct: pct, lastPct: pct)
        }
    }

    static func context(_ history: inout PremiumHistory, pct: Double, now: Date) -> PremiumContext? {
        history.context(key, rule: "kimchi", pct: pct, now: now)
    }

    @Test func fewerThanTenSamplesGiveNoContext() {
        var history = Self.history()
        history.warm(Self.samples([1, 2, 3, 4, 5, 6, 7, 8, 9]))
        #expect(history.context(Self.key, rule: "kimchi", pct: 5, now: Self.start.addingTimeInterval(9 * 60)) == nil)
        history.warm(Self.samples([10], from: Self.start.addingTimeInterval(9 * 60)))
        let context = history.context(Self.key, rule: "kimchi", pct: 5, now: Self.start.addingTimeInterval(10 * 60))
        #expect(context?.samples == 10)
        #expect(context?.percentile == 50)  // 1...5 of 1...10
        #expect(context?.window == "1h")
    }

    @Test func allEqualSamplesPutAnEqualPctAtTheTopAndALowerOneAtTheBottom() throws {
        var history = Self.history()
        history.warm(Self.samples(Array(repeating: 2.5, count: 20)))
        let now = Self.start.addingTimeInterval(20 * 60)
        let equal = try #require(Self.context(&history, pct: 2.5, now: now))
        #expect(equal.percentile == 100)
        #expect(equal.medianPct.map { abs($0 - 2.5) < 0.002 } == true)
        #expect(equal.maxPct == 2.5)
        let lower = try #require(Self.context(&history, pct: 2.4, now: now))
        #expect(lower.percentile == 0)
    }

    @Test func aNewMaximumIsAboveEverySampleAndTheMaxIsExactWithItsTime() throws {
        var history = Self.history()
        let maxima = (0..<40).map { 1 + Double($0 % 10) * 0.1 }  // 1.0 ... 1.9, four times
        var list = Self.samples(maxima)
        list[17].maxPct = 4.1  // the window's maximum, exactly
        history.warm(list)
        let now = Self.start.addingTimeInterval(40 * 60)
        let top = try #require(Self.context(&history, pct: 4.2, now: now))
        #expect(top.percentile == 100)
        #expect(top.samples == 40)
        #expect(top.maxPct == 4.1)
        #expect(top.maxAt == Self.start.addingTimeInterval(17 * 60))
        let middle = try #require(Self.context(&history, pct: 1.45, now: now))
        #expect(middle.percentile == 50)  // 1.0 ... 1.4 of each ten
        let median = try #require(middle.medianPct)
        #expect(abs(median - 1.4) < 0.002, "median \(median)")
        #expect(top.text(timeZone: .gmt).hasPrefix("the highest of the last hour (median 1.4"))
    }

    @Test func aNewMinimumIsBelowEverySample() throws {
        var history = Self.history()
        history.warm(Self.samples((0..<30).map { 0.5 + Double($0) * 0.01 }))
        let context = try #require(Self.context(&history, pct: 0.1, now: Self.start.addingTimeInterval(30 * 60)))
        #expect(context.percentile == 0)
        #expect(context.text(timeZone: .gmt).hasPrefix("the lowest of the last hour"))
    }

    @Test func negativePremiumsAreOrderedBelowPositiveOnes() throws {
        var history = Self.history()
        history.warm(Self.samples((0..<20).map { -1 + Double($0) * 0.1 }))  // -1.0 ... 0.9
        let context = try #require(Self.context(&history, pct: -0.05, now: Self.start.addingTimeInterval(20 * 60)))
        #expect(context.percentile == 50)  // -1.0 ... -0.1
    }

    @Test func samplesSlideOutOfTheWindowAndTheMaximumWithThem() throws {
        var history = Self.history(window: .seconds(30 * 60))  // 30 slots
        var list = Self.samples(Array(repeating: 1, count: 60))
        list[5].maxPct = 9  // falls out after 30 more minutes
        list[40].maxPct = 3
        history.warm(Array(list.prefix(20)))
        let early = try #require(Self.context(&history, pct: 2, now: Self.start.addingTimeInterval(20 * 60)))
        #expect(early.maxPct == 9)
        #expect(early.samples == 20)
        history.warm(Array(list.dropFirst(20)))
        let late = try #require(Self.context(&history, pct: 2, now: Self.start.addingTimeInterval(60 * 60)))
        #expect(late.samples == 30)
        #expect(late.maxPct == 3)
        #expect(late.maxAt == Self.start.addingTimeInterval(40 * 60))
        #expect(abs(late.percentile - 29.0 / 30 * 100) < 1e-9)
        // A quiet hour later, nothing is left in the window.
        #expect(history.context(Self.key, rule: "kimchi", pct: 2, now: Self.start.addingTimeInterval(120 * 60)) == nil)
    }

    @Test func aContextOf43200SamplesIsExactEnoughAndTheRingStaysSmall() throws {
        var history = Self.history(window: .seconds(30 * 86_400))
        let values = (0..<43_200).map { Double(($0 * 7_919) % 43_200) / 10_000 }  // 0 ... 4.3199, each once
        history.warm(values.enumerated().map { index, pct in
            HistorySample(rule: "kimchi", asset: "BTC", at: Self.start.addingTimeInterval(Double(index) * 60), minPct: pct, maxPct: pct, lastPct: pct)
        })
        let context = try #require(Self.context(&history, pct: 3.5, now: Self.start.addingTimeInterval(43_200 * 60)))
        #expect(context.samples == 43_200)
        #expect(abs(context.percentile - 35_001.0 / 43_200 * 100) < 0.1, "\(context.percentile)")
        #expect(context.maxPct == 4.3199)
        #expect(abs((context.medianPct ?? 0) - 2.16) < 0.002)
    }
}
