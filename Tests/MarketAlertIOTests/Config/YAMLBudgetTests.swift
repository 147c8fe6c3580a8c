import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// Alias bombs and oversized configs are rejected before any tree is built, naming the key path and limit.
@Suite("Bounded YAML", .timeLimit(.minutes(1)))
struct YAMLBudgetTests {
    /// `levels` levels of `width` aliases of the level below: width^levels nodes when expanded.
    static func laughs(levels: Int, width: Int = 10) -> String {
        var yaml = "l0: &l0 [" + Array(repeating: "\"lol\"", count: width).joined(separator: ", ") + "]\n"
        for level in 1...levels {
            yaml += "l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: width).joined(separator: ", ") + "]\n"
        }
        return yaml
    }

    func issue(_ yaml: String) -> ConfigIssue? {
        do {
            _ = try ConfigLoader.parse(yaml: yaml)
            return nil
        } catch {
            return error.issues.first
        }
    }

    @Test func billionLaughsIsRejectedAtTheKeyWhereItCrossesTheLimit() throws {
        let started = ContinuousClock.now
        let found = try #require(issue(Self.laughs(levels: 9)))
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(found.message == "rejected: the YAML expands to more than 100000 nodes (aliases repeat whole nodes); a config needs far fewer")
        // l0..l3 expand to 12,344 nodes; each item of l4 repeats the 11,111 of l3: the 8th crosses 100,000.
        #expect(found.path == "l4[7]", "\(found)")
        #expect(found.line == 5)
    }

    @Test func tooManyAliasesAreRejected() throws {
        let yaml = "a: &a x\nlist: [" + Array(repeating: "*a", count: 1_001).joined(separator: ", ") + "]\n"
        let found = try #require(issue(yaml))
        #expect(found.message.contains("more than 1000 aliases"))
        #expect(found.path == "list[1000]")
    }

    @Test func theLimitsAreParametersAndSmallDocumentsPass() {
        #expect(YAMLBudget.check(Self.laughs(levels: 2)) == nil)  // 1,111 + 111 + 11 nodes
        #expect(YAMLBudget.check(Self.laughs(levels: 2), maxExpandedNodes: 1_000)?.path == "l2[7]")
        #expect(YAMLBudget.check("a: [1, 2]\nb: {c: [*x" ) == nil, "syntax errors are left to the parser")
    }

    @Test func aValidConfigUsingAnAliasStillLoads() throws {
        let yaml = """
            exchanges:
              binance: { poll_interval: 5s }
              bybit: { poll_interval: 5s }
            premium:
              reference: USD
              rules:
                - name: a
                  assets: [BTC]
                  exchanges: &pair [binance, bybit]
                  quotes: [USDT]
                  levels: [{ pct: 0.1, severity: warning }]
                  clear_pct: 0.05
                - name: b
                  assets: [ETH]
                  exchanges: *pair
                  quotes: [USDT]
                  levels: [{ pct: 0.1, severity: warning }]
                  clear_pct: 0.05
            """
        let settings = try ConfigLoader.parse(yaml: yaml).settings
        #expect(settings.premium.rules.map(\.exchanges) == [[.binance, .bybit], [.binance, .bybit]])
    }

    @Test func moreThanOneMebibyteIsRejectedBeforeParsing() throws {
        let found = try #require(issue("a: 1\n" + String(repeating: "#\n", count: 600_000)))
        #expect(found.message.contains("at most 1048576 bytes"))
    }
}
