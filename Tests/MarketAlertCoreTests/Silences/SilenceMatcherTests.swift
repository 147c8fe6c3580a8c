import Foundation
import MarketAlertCore
import Testing

@Suite struct SilenceMatcherTests {
    @Test(arguments: [
        ("premium/kimchi/*", "premium/kimchi/BTC", true),
        ("premium/kimchi/*", "premium/kimchi/", true),
        ("premium/kimchi/*", "premium/global/BTC", false),
        ("premium/*/BTC", "premium/kimchi/BTC", true),
        ("premium/*/BTC", "premium/kimchi/ETH", false),
        ("*", "source/bybit", true),
        ("source/*", "source/bybit/data", true),  // `*` also spans `/`
        ("source/bybit", "source/bybit/data", false),  // no star: exact
        ("source/bybit", "source/bybit", true),
        ("*/BTC", "premium/global/BTC", true),
        ("premium/*i*/B*C", "premium/kimchi/BTC", true),
        ("a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaa", false),  // backtracking stays linear-ish and correct
        ("", "", true),
        ("", "x", false),
    ])
    func globs(pattern: String, key: String, matches: Bool) {
        #expect(SilenceMatcher.glob(pattern, matches: key) == matches)
    }

    func event(_ key: String, status: String = "firing", severity: Severity = .warning, kind: AlertKind = .premium) -> AlertEvent {
        AlertEvent(id: "e", key: key, kind: kind, status: status, severity: severity, at: Date(timeIntervalSince1970: 0), summary: "s")
    }

    @Test func everyGivenMatcherMustHold() {
        let subject = SilenceMatcher.Subject(event("premium/kimchi/BTC"))
        #expect(subject.rule == "kimchi" && subject.asset == "BTC")
        #expect(SilenceMatcher.matches(SilenceMatchers(key: "premium/*", kind: .premium, rule: "kimchi", asset: "btc", severity: .warning), subject))
        #expect(!SilenceMatcher.matches(SilenceMatchers(key: "premium/*", kind: .fx), subject))
        #expect(!SilenceMatcher.matches(SilenceMatchers(key: "premium/*", rule: "global"), subject))
        #expect(!SilenceMatcher.matches(SilenceMatchers(key: "premium/*", asset: "ETH"), subject))
        #expect(!SilenceMatcher.matches(SilenceMatchers(key: "premium/*", severity: .critical), subject))
        // A non-premium key has no rule or asset: a matcher naming one does not select it.
        let source = SilenceMatcher.Subject(event("source/bybit", kind: .source))
        #expect(!SilenceMatcher.matches(SilenceMatchers(key: "*", rule: "kimchi"), source))
        #expect(SilenceMatcher.matches(SilenceMatchers(key: "*"), source))
    }

    @Test func aResolutionMatchesWithTheSeverityTheKeyFiredWith() {
        let resolved = event("premium/kimchi/BTC", status: "resolved", severity: .info)
        let warningOnly = SilenceMatchers(key: "premium/*", severity: .warning)
        #expect(!SilenceMatcher.matches(warningOnly, SilenceMatcher.Subject(resolved)))
        #expect(SilenceMatcher.matches(warningOnly, SilenceMatcher.Subject(resolved, firingSeverity: .warning)))
    }

    @Test func onlyActiveSilencesHoldAKey() {
        let t0 = Date(timeIntervalSince1970: 1_000)
        let subject = SilenceMatcher.Subject(event("premium/kimchi/BTC"))
        let later = Silence(
            id: "later", matchers: SilenceMatchers(key: "premium/*"), startsAt: t0.addingTimeInterval(60), endsAt: t0.addingTimeInterval(120),
            comment: "c", createdBy: "t", createdAt: t0)
        let now = Silence(
            id: "now", matchers: SilenceMatchers(key: "premium/kimchi/*"), startsAt: t0, endsAt: t0.addingTimeInterval(60),
            comment: "c", createdBy: "t", createdAt: t0)
        #expect(SilenceMatcher.activeSilence(for: subject, in: [later, now], now: t0)?.id == "now")
        #expect(SilenceMatcher.activeSilence(for: subject, in: [later, now], now: t0.addingTimeInterval(60))?.id == "later")
        #expect(SilenceMatcher.activeSilence(for: subject, in: [later, now], now: t0.addingTimeInterval(120)) == nil)
    }
}
