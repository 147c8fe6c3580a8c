import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// `history:`, `digest:` and a rule's `context_window` (v2).
@Suite struct HistoryConfigTests {
    static let rule = """
        exchanges:
          binance: {}
          bybit: {}
        premium:
          rules:
            - name: global
              assets: [BTC]
              exchanges: [binance, bybit]
              quotes: [USDT]

        """

    /// The v2 example (`Tests/Fixtures/spec/marketalertd.example.v2.yaml`, a copy of the shared spec) loads
    /// whole: history, digest, every rule's window, and the `ha:` section.
    @Test func theV2ExampleLoadsWithHistoryDigestAndHA() throws {
        let text = try Fixtures.string("spec/marketalertd.example.v2.yaml")
        let settings = try ConfigLoader.parse(yaml: text).settings
        #expect(settings.history == HistorySettings(resolution: .seconds(60), retention: .seconds(90 * 86_400)))
        #expect(settings.digest == DigestSettings(hour: 9, minute: 0, timeZone: "Asia/Seoul", kinds: [.premium, .ipo]))
        #expect(settings.premium.rules.map(\.contextWindow) == [nil, .seconds(30 * 86_400)])  // only kimchi sets one
        #expect(settings.ha?.postgresURLEnv == "MARKETALERTD_DATABASE_URL")
        #expect(settings.ha?.lease == .seconds(10))
    }

    @Test func withoutTheSectionsThereIsNoHistoryAndNoDigest() throws {
        let settings = try ConfigLoader.parse(yaml: Self.rule).settings
        #expect(settings.history == nil && settings.digest == nil)
        #expect(settings.premium.rules.first?.contextWindow == nil)
        #expect(settings.premium.rules.first?.contextWindow(resolution: .seconds(60)) == .seconds(30 * 86_400))
        // At 1 s the default shrinks to what 200,000 samples hold (a test config needs no window of its own).
        #expect(settings.premium.rules.first?.contextWindow(resolution: .seconds(1)) == .seconds(200_000))
        let fast = try ConfigLoader.parse(yaml: Self.rule + "history:\n  resolution: 1s\n").settings
        #expect(fast.history?.resolution == .seconds(1))
    }

    @Test(arguments: [
        ("history:\n  resolution: 0s\n", "history.resolution", "at least 1s"),
        ("history:\n  resolution: 1500ms\n", "history.resolution", "whole number of seconds"),
        ("history:\n  resolution: soon\n", "history.resolution", "expected a duration"),
        ("history:\n  resolution: 1m\n  retention: 30s\n", "history.retention", "at least one resolution"),
        ("history:\n  resolutoin: 1m\n", "history.resolutoin", "unknown key"),
        ("digest:\n  time_zone: Asia/Seoul\n", "digest.at", "required"),
        ("digest:\n  at: \"9:00\"\n", "digest.at", "HH:MM"),
        ("digest:\n  at: \"24:00\"\n", "digest.at", "HH:MM"),
        ("digest:\n  at: \"09:00\"\n  time_zone: Mars/Olympus\n", "digest.time_zone", "unknown time zone \"Mars/Olympus\""),
        ("digest:\n  at: \"09:00\"\n  kinds: [premium, weather]\n", "digest.kinds[1]", "expected one of premium, ipo"),
    ])
    func mistakesNameTheirKey(yaml: String, path: String, fragment: String) throws {
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: Self.rule + yaml) }
        let issue = try #require(error.issues.first { $0.path == path }, "\(error.issues)")
        #expect(issue.message.contains(fragment), "\(issue.message)")
    }

    @Test func aWindowOfTooManySlotsIsRejectedNamingTheRulesKey() throws {
        let yaml = Self.rule.replacingOccurrences(of: "quotes: [USDT]\n", with: "quotes: [USDT]\n      context_window: 30d\n")
            + "history:\n  resolution: 1s\n"
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let issue = try #require(error.issues.first { $0.path == "premium.rules[0].context_window" }, "\(error.issues)")
        #expect(issue.message.contains("2592000 samples per key; at most 200000"), "\(issue.message)")
        // 2 days at 1 s is 172,800 slots: accepted.
        let fine = yaml.replacingOccurrences(of: "context_window: 30d", with: "context_window: 2d")
        #expect(try ConfigLoader.parse(yaml: fine).settings.premium.rules.first?.contextWindow == .seconds(2 * 86_400))
    }
}
