import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import Testing

/// v3 `routes`, `time_intervals` and `inhibit`: the example's shapes parse; unknown sinks and intervals, bad
/// clock times, weekdays and ranges are errors naming their key path; a kind no route matches and a route
/// after a catch-all are warnings.
@Suite struct RoutingConfigTests {
    private let sinks = """
        sinks:
          webhooks:
            - { name: team-chat, url: "http://127.0.0.1:1/chat", format: slack }
            - { name: phone, url: "http://127.0.0.1:1/ntfy" }
            - { name: ops, url: "http://127.0.0.1:1/ops" }
        exchanges: { binance: {}, upbit: {} }
        fx: { providers: [{ name: dunamu }] }
        premium:
          rules:
            - { name: kimchi, assets: [btc], exchanges: [binance, upbit], quotes: [usdt, krw] }

        """

    @Test func theExampleShapesParse() throws {
        let yaml = sinks + """
            routes:
              - match: { kind: premium, rule: kimchi }
                sinks: [team-chat, phone]
                mute_time_intervals: [night-kst]
                send_after_mute: true
                continue: true
              - match: { key: "source/*", severity: critical }
                sinks: [phone]
                active_time_intervals: [tw-market-days]
              - match: {}
                sinks: [ops]
            time_intervals:
              - name: night-kst
                location: Asia/Seoul
                times: [{ start: "22:00", end: "07:00" }]
              - name: tw-market-days
                location: Asia/Taipei
                weekdays: [monday:friday]
                times: [{ start: "08:00", end: "18:00" }]
              - name: month-end
                time_intervals:
                  - { days_of_month: ["-3:-1"], months: [december] }
                  - { years: ["2027:2028"] }
            inhibit:
              - source: { kind: source }
                target: { kind: premium }
                equal: [exchange]
            """
        let settings = try ConfigLoader.parse(yaml: yaml).settings
        let routing = settings.routing
        #expect(routing.routes.count == 3)
        #expect(routing.routes[0].match == NotificationMatch(kind: .premium, rule: "kimchi"))
        #expect(routing.routes[0].continue && routing.routes[0].sendAfterMute)
        #expect(routing.routes[1].match == NotificationMatch(severity: .critical, key: "source/*"))
        #expect(routing.routes[2].match == NotificationMatch())
        let night = try #require(routing.timeIntervals["night-kst"])
        #expect(night.location.identifier == "Asia/Seoul")
        #expect(night.entries == [TimeWindowEntry(times: [ClockRange(start: 22 * 60, end: 7 * 60)])])
        #expect(routing.timeIntervals["tw-market-days"]?.entries.first?.weekdays == [1...5])
        let monthEnd = try #require(routing.timeIntervals["month-end"])
        #expect(monthEnd.entries == [TimeWindowEntry(daysOfMonth: [-3 ... -1], months: [12...12]), TimeWindowEntry(years: [2027...2028])])
        #expect(routing.inhibit == [
            InhibitRule(source: NotificationMatch(kind: .source), target: NotificationMatch(kind: .premium), equal: [.exchange])
        ])
    }

    @Test func badReferencesAndValuesNameTheirKeyPath() throws {
        let yaml = sinks + """
            routes:
              - match: { kind: premiums }
                sinks: [pager]
                mute_time_intervals: [nights]
            time_intervals:
              - name: broken
                location: Mars/Olympus
                weekdays: [funday, "friday:monday"]
                days_of_month: ["0"]
                months: ["march:january"]
                times: [{ start: "25:00", end: "07:00" }, { start: "10:00", end: "10:00" }]
            inhibit:
              - source: { kind: source }
                equal: [color]
            """
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let text = error.description
        for path in [
            "routes[0].match.kind", "routes[0].sinks[0]", "routes[0].mute_time_intervals[0]",
            "time_intervals[0].location", "time_intervals[0].weekdays[0]", "time_intervals[0].days_of_month",
            "time_intervals[0].months[0]", "time_intervals[0].times[0].start", "time_intervals[0].times[1].end",
            "inhibit[0].target", "inhibit[0].equal[0]",
        ] {
            #expect(text.contains(path), "expected an error at \(path) in: \(text)")
        }
        #expect(!text.contains("weekdays[1]"))  // friday:monday wraps the week: valid
    }

    @Test func aKindNoRouteMatchesAndAnUnreachableRouteAreWarnings() throws {
        let yaml = sinks + """
            routes:
              - match: { kind: premium }
                sinks: [phone]
              - match: {}
                sinks: [ops]
              - match: { kind: source }
                sinks: [team-chat]
            """
        let parsed = try ConfigLoader.parse(yaml: yaml)
        #expect(parsed.warnings.contains { $0.path == "routes[2]" && $0.message.contains("can never match") })
        let narrow = sinks + "routes:\n  - match: { kind: premium }\n    sinks: [phone]\n"
        let warnings = try ConfigLoader.parse(yaml: narrow).warnings
        #expect(warnings.contains { $0.path == "routes" && $0.message.contains("kind source") })
        #expect(!warnings.contains { $0.message.contains("kind premium") })
    }

    @Test func aVersion2FileHasNoRouting() throws {
        let settings = try ConfigLoader.parse(yaml: sinks).settings
        #expect(settings.routing.isEmpty)
        #expect(settings.routing.timeIntervals.isEmpty)
    }
}
