import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

@Suite struct ConfigLoaderTests {
    /// The shipped default is the agreed version-3 example with its `ha:` section commented out (a single
    /// instance needs no PostgreSQL), under a header saying so: every other byte as the example has it.
    @Test func theShippedConfigIsTheVersion3ExampleWithoutHA() throws {
        let example = try Fixtures.string("spec/marketalertd.example.v3.yaml")
        let shipped = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("config/marketalertd.yaml"), encoding: .utf8)
        var lines = example.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let haStart = try #require(lines.firstIndex { $0.hasPrefix("ha:") })
        let haEnd = try #require(lines[haStart...].firstIndex { $0.isEmpty })
        for index in haStart..<haEnd { lines[index] = "# " + lines[index] }
        let body = lines.joined(separator: "\n")
        #expect(shipped.hasSuffix(body))
        let header = shipped.dropLast(body.count).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(!header.isEmpty && header.allSatisfy { $0.hasPrefix("#") }, "only a comment before the example")
        let settings = try ConfigLoader.parse(yaml: shipped).settings
        #expect(settings.ha == nil)
        #expect(settings.http?.listen == "127.0.0.1:9108")
        #expect(settings.exchanges[.binance]?.streamURL?.absoluteString == "wss://stream.binance.com:9443/ws")
        #expect(settings.premium.rules.count == 4)
        #expect(settings.listings != nil && settings.transfers != nil && !settings.routing.isEmpty)
    }

    /// The agreed version-1 example loads unchanged.
    @Test func exampleConfigLoadsUnchanged() throws {
        let example = try Fixtures.string("spec/marketalertd.example.yaml")
        let loaded = try ConfigLoader.parse(yaml: example)
        let settings = loaded.settings
        #expect(settings.stateDirectory == "./state")
        #expect(settings.displayTimeZones == ["UTC", "Asia/Seoul", "Asia/Taipei"])
        #expect(settings.enabledExchanges.map(\.id) == [.binance, .bitget, .bithumb, .bybit, .okx, .upbit])
        #expect(settings.exchanges[.kraken]?.enabled == false)
        #expect(settings.exchanges[.binance]?.pollInterval == .seconds(5))
        #expect(settings.fx.providers.map(\.kind) == [.dunamu, .openexchangerates, .frankfurter])
        #expect(settings.fx.providers[1].appIDEnv == "OXR_APP_ID")
        #expect(settings.fx.maxAge == .seconds(900))
        #expect(settings.fx.alerts == [FXAlertSettings(base: "USD", quote: "KRW", changePct: 0.5)])
        #expect(settings.premium.rules.count == 2)
        let global = settings.premium.rules[0]
        #expect(global.levels == [AlertLevel(pct: 0.05, severity: .notice), AlertLevel(pct: 0.1, severity: .warning)])
        #expect(global.clearPct == 0.04)
        #expect(global.repeatInterval == .seconds(3600))
        let kimchi = settings.premium.rules[1]
        #expect(kimchi.quotes == ["KRW", "USDT"])
        #expect(kimchi.forDuration == .seconds(30))
        #expect(kimchi.levels.last == AlertLevel(pct: 5.0, severity: .critical))
        #expect(settings.ipo.notify == [.opens, .last_day])
        #expect(settings.ipo.sources.first?.timeZone == "Asia/Taipei")
        #expect(settings.ipo.excludeNamePatterns == ["公債", "債"])
        #expect(settings.sinks.stdoutFormat == .json)
        #expect(settings.sinks.journalEnabled)
        #expect(settings.sinks.webhooks.map(\.name) == ["ops", "team-chat"])
        #expect(settings.sinks.webhooks[1].urlEnv == "SLACK_WEBHOOK_URL")
        #expect(settings.sinks.webhooks[1].kinds == [.premium, .ipo])
        #expect(settings.neededFXCurrencies == ["KRW"])
        #expect(loaded.warnings.isEmpty)
    }

    /// Each kind of mistake gives its own error naming the key path and the line.
    @Test(arguments: [
        // (yaml, expected path, expected message fragment, expected line)
        ("premium:\n  rules:\n    - name: a\n      assets: [BTC]\n      exchanges: [binance, bybit]\n      quotes: [USDT]\n      threshold_pct: abc\n",
         "premium.rules[0].threshold_pct", "expected a number, got \"abc\"", 7),
        ("exchanges:\n  binance: { poll_interval: 5 }\n", "exchanges.binance.poll_interval", "expected a duration", 2),
        ("exchanges:\n  binance: { poll_intervall: 5s }\n", "exchanges.binance.poll_intervall", "unknown key", 2),
        ("exchanges:\n  binanse: {}\n", "exchanges.binanse", "unknown exchange", 2),
        ("bogus: 1\n", "bogus", "unknown key", 1),
        ("premium:\n  rules: []\n", "premium.rules", "at least one rule", 2),
        ("fx:\n  max_age: soon\n", "fx.max_age", "expected a duration", 2),
        ("exchanges:\n  binance: { enabled: maybe }\n", "exchanges.binance.enabled", "expected true or false", 2),
        ("display_time_zones: [Mars/Olympus]\n", "display_time_zones[0]", "unknown time zone", 1),
        ("sinks:\n  stdout: { format: xml }\n", "sinks.stdout.format", "expected one of json, text", 2),
        ("sinks:\n  webhooks:\n    - name: a\n      format: json\n", "sinks.webhooks[0].url", "exactly one of url or url_env", nil),
        ("exchanges:\n  binance: { base_url: \"ftp://x\" }\n", "exchanges.binance.base_url", "expected an http(s) URL", 2),
        ("ipo:\n  notify: [opens, tomorrow]\n", "ipo.notify[1]", "expected one of", 2),
    ] as [(String, String, String, Int?)])
    func badConfigNamesTheKey(yaml: String, path: String, fragment: String, line: Int?) throws {
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let issue = try #require(error.issues.first { $0.path == path }, "no issue for \(path) in \(error)")
        #expect(issue.message.contains(fragment), "\(issue)")
        if let line { #expect(issue.line == line, "\(issue)") }
    }

    @Test func levelsOutOfOrderAndClearAboveTheLowestLevelAreBothReported() throws {
        let yaml = """
            exchanges: { binance: {}, bybit: {} }
            premium:
              rules:
                - name: g
                  assets: [BTC]
                  exchanges: [binance, bybit]
                  quotes: [USDT]
                  levels:
                    - { pct: 0.1, severity: warning }
                    - { pct: 0.05, severity: notice }
                  clear_pct: 0.2
            """
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let paths = error.issues.map(\.path)
        #expect(paths.contains("premium.rules[0].levels[1].pct"))
        #expect(paths.contains("premium.rules[0].clear_pct"))
    }

    @Test func everyProblemIsListedNotJustTheFirst() throws {
        let yaml = "state_dir: [a]\nexchanges:\n  okx: { poll_interval: fast, timeout: -1s }\nfx: { poll_interval: 0s }\nmystery: true\n"
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        #expect(Set(error.issues.map(\.path)) == ["state_dir", "exchanges.okx.poll_interval", "exchanges.okx.timeout", "fx.poll_interval", "mystery"])
    }

    @Test func ruleNamingAnUnconfiguredExchangeIsAnError() throws {
        let yaml = "exchanges: { binance: {} }\npremium:\n  rules:\n    - { name: g, assets: [BTC], exchanges: [binance, kraken], quotes: [USDT] }\n"
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        #expect(error.issues.contains { $0.path == "premium.rules[0].exchanges[1]" && $0.message.contains("not configured") })
    }

    @Test func krwQuotesWithoutFXProvidersAreAnError() throws {
        let yaml = "exchanges: { binance: {}, upbit: {} }\npremium:\n  rules:\n    - { name: k, assets: [BTC], exchanges: [upbit, binance], quotes: [KRW, USDT] }\n"
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        #expect(error.issues.contains { $0.path == "premium.rules[0].quotes" && $0.message.contains("KRW") })
    }

    @Test func invalidYAMLReportsALine() throws {
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: "exchanges:\n  binance: {\n  bybit: [\n") }
        #expect(error.issues.count == 1)
        #expect(error.issues[0].message.contains("not valid YAML"))
        #expect(error.issues[0].line != nil)
    }

    @Test func missingFileIsAClearError() throws {
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.load(path: "/nonexistent/marketalertd.yaml") }
        #expect(error.description.contains("/nonexistent/marketalertd.yaml"))
    }

    @Test func defaultsApplyWhenKeysAreOmitted() throws {
        let yaml = "exchanges: { binance: {}, bybit: {} }\npremium:\n  rules:\n    - { name: g, assets: [btc], exchanges: [binance, bybit], quotes: [usdt] }\n"
        let rule = try #require(try ConfigLoader.parse(yaml: yaml).settings.premium.rules.first)
        #expect(rule.levels == PremiumRule.defaultLevels)
        #expect(rule.assets == ["BTC"])
        #expect(rule.quotes == ["USDT"])
        #expect(abs(rule.clearPct - 0.04) < 1e-12)
        #expect(rule.basis == .last)
    }

    @Test func pollIntervalsBelowAnExchangesDocumentedMinimumAreRejectedExceptOnLoopback() throws {
        let yaml = """
            exchanges:
              binance: { poll_interval: 1ms }
              okx: { poll_interval: 100ms }
              bybit: { poll_interval: 250ms }
              upbit: { poll_interval: 20ms, base_url: "http://127.0.0.1:9/" }
            """
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let messages = error.issues.map(\.description)
        #expect(messages.contains { $0.contains("exchanges.binance.poll_interval") && $0.contains("minimum of 1s") })
        #expect(messages.contains { $0.contains("exchanges.okx.poll_interval") && $0.contains("minimum of 250ms") })
        #expect(!messages.contains { $0.contains("bybit") || $0.contains("upbit") })
    }

    @Test func streamKeysOfVersion2AndTheNoStreamRuleForOverriddenBaseURLs() throws {
        let settings = try ConfigLoader.parse(yaml: """
            exchanges:
              binance: { stale_after: 10s }
              bybit: { base_url: "http://127.0.0.1:9/" }
              okx: { base_url: "http://127.0.0.1:9/", stream_url: "ws://127.0.0.1:9/ws" }
              coinbase: { stream: false }
            """).settings
        #expect(settings.exchanges[.binance]?.streamURL?.absoluteString == "wss://stream.binance.com:9443/ws")
        #expect(settings.exchanges[.binance]?.staleAfter == .seconds(10))
        #expect(settings.exchanges[.bybit]?.streamURL == nil)
        #expect(settings.exchanges[.okx]?.streamURL?.absoluteString == "ws://127.0.0.1:9/ws")
        #expect(settings.exchanges[.coinbase]?.streamEnabled == false)
        let bad = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: "exchanges:\n  okx: { stream_url: \"https://x\" }\n") }
        #expect(bad.issues.contains { $0.path == "exchanges.okx.stream_url" })
    }
}
