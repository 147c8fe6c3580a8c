import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The v3 example (`Tests/Fixtures/spec/marketalertd.example.v3.yaml`, a copy of the shared spec) loads whole,
/// without one error, and its v3 sections reach the settings; the v1 and v2 examples still load.
@Suite struct V3ExampleConfigTests {
    @Test func theV3ExampleLoadsWithItsRoutingSinksAndSections() throws {
        let parsed = try ConfigLoader.parse(yaml: try Fixtures.string("spec/marketalertd.example.v3.yaml"))
        #expect(!parsed.warnings.contains { $0.path.hasPrefix("routes") }, "\(parsed.warnings)")
        let settings = parsed.settings
        let routing = settings.routing
        #expect(routing.routes.map(\.sinks) == [["team-chat", "phone"], ["phone", "mail"], ["ops"]])
        #expect(routing.routes.first?.match == NotificationMatch(kind: .premium, rule: "kimchi"))
        #expect(routing.routes.first?.continue == true && routing.routes.first?.sendAfterMute == true)
        #expect(routing.timeIntervals["night-kst"]?.location.identifier == "Asia/Seoul")
        #expect(routing.timeIntervals["tw-market-days"]?.entries.first?.weekdays == [1...5])
        #expect(routing.inhibit.first?.equal == [.exchange])
        #expect(settings.sinks.webhooks.first { $0.name == "phone" }?.format == .ntfy)
        #expect(settings.sinks.email.map(\.name) == ["mail"])
        #expect(settings.transfers != nil)
        #expect(settings.listings?.exchanges == [.upbit, .bithumb, .binance])
    }

    @Test func theOlderExamplesStillLoad() throws {
        for name in ["spec/marketalertd.example.yaml", "spec/marketalertd.example.v2.yaml"] {
            let settings = try ConfigLoader.parse(yaml: try Fixtures.string(name)).settings
            #expect(settings.routing.isEmpty, "\(name)")
            #expect(settings.sinks.email.isEmpty && settings.transfers == nil && settings.listings == nil, "\(name)")
        }
    }
}
