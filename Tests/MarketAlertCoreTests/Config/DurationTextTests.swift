import MarketAlertCore
import Testing

@Suite struct DurationTextTests {
    @Test(arguments: [
        ("250ms", Duration.milliseconds(250)), ("5s", .seconds(5)), ("10m", .seconds(600)), ("1h", .seconds(3600)),
        ("1d", .seconds(86_400)), ("0s", .zero), ("0", .zero), ("1h30m", .seconds(5400)), (" 15m ", .seconds(900)),
    ])
    func parsesDurations(text: String, expected: Duration) {
        #expect(DurationText.parse(text) == expected)
    }

    @Test(arguments: ["", "5", "5x", "s", "-5s", "5.5s", "1 h", "abc", "10mm", "ms"])
    func rejectsMalformedDurations(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func formatsDurationsBack() {
        #expect(DurationText.format(.seconds(5400)) == "1h30m")
        #expect(DurationText.format(.milliseconds(250)) == "250ms")
        #expect(DurationText.format(.seconds(86_400 + 1)) == "1d1s")
    }
}
