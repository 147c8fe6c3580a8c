import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// `ipo.value` (v3) as read from YAML: the example's section reaches the settings, `drawn` is a notification,
/// problems name their key path, and without the section nothing changes (no value, nothing fetched).
@Suite struct IPOValueConfigTests {
    static let base = """
        ipo:
          sources:
            - name: twse
              base_url: "http://127.0.0.1:1"
          notify: [opens, last_day, drawn]

        """

    @Test func theV3ExampleEnablesValueWithTheRealSites() throws {
        let settings = try ConfigLoader.parse(yaml: try Fixtures.string("spec/marketalertd.example.v3.yaml")).settings
        let value = try #require(settings.ipo.value)
        #expect(value.minSpreadPct == Decimal(10))
        #expect(value.twseURL.absoluteString == "https://www.twse.com.tw")
        #expect(value.tpexURL.absoluteString == "https://www.tpex.org.tw")
    }

    @Test func theSectionIsRead() throws {
        let yaml = Self.base + """
              value:
                min_spread_pct: 12.5
                sources: { twse: "http://127.0.0.1:8081", tpex: "http://127.0.0.1:8082" }
            """
        let settings = try ConfigLoader.parse(yaml: yaml).settings
        #expect(settings.ipo.notify == [.opens, .last_day, .drawn])
        let value = try #require(settings.ipo.value)
        #expect(value.minSpreadPct == Decimal(string: "12.5", locale: nil))
        #expect(value.baseURL(for: .twse_close).absoluteString == "http://127.0.0.1:8081")
        #expect(value.baseURL(for: .tpex_emerging).absoluteString == "http://127.0.0.1:8082")
    }

    @Test func withoutTheSectionOrDisabledThereIsNoValue() throws {
        #expect(try ConfigLoader.parse(yaml: Self.base).settings.ipo.value == nil)
        let disabled = Self.base + "  value: { enabled: false, min_spread_pct: 5 }\n"
        #expect(try ConfigLoader.parse(yaml: disabled).settings.ipo.value == nil)
    }

    @Test(arguments: [
        ("  value: { min_spread_pct: abc }\n", "ipo.value.min_spread_pct"),
        ("  value: { min_spread_pct: -150 }\n", "ipo.value.min_spread_pct"),
        ("  value: { sources: { twse: \"ftp://x\" } }\n", "ipo.value.sources.twse"),
        ("  value: { sources: { nyse: \"https://x\" } }\n", "ipo.value.sources.nyse"),
        ("  value: { minimum: 3 }\n", "ipo.value.minimum"),
    ])
    func problemsNameTheirKeyPath(fragment: String, path: String) throws {
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: Self.base + fragment) }
        #expect(error.issues.contains { $0.path == path }, "\(error.issues)")
    }
}
