import Foundation
import MarketAlertIO
import Testing

@Suite struct CLIReportTests {
    @Test func tablesAlignWideCharactersByTerminalColumns() {
        var table = TextTable(["CODE", "NAME", "STATE"])
        table.add(["4169", "泰宗", "open"])
        table.add(["3322", "建舜電", "upcoming"])
        #expect(table.render() == """
            CODE  NAME    STATE
            4169  泰宗    open
            3322  建舜電  upcoming
            """)
    }

    @Test func silenceBodiesCarryEveryMatcherAndRefuseMalformedOnes() throws {
        let body = try CLIReport.silenceBody(
            matches: ["key=premium/kimchi/*", "severity=warning"], duration: "2h", until: nil, comment: "maintenance", author: "ops")
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["matchers"] as? [String: String] == ["key": "premium/kimchi/*", "severity": "warning"])
        #expect(object["duration"] as? String == "2h")
        #expect(object["ends_at"] == nil)
        #expect(object["created_by"] as? String == "ops")
        #expect(throws: CLIReport.Malformed.self) { try CLIReport.silenceBody(matches: ["premium/*"], duration: "1h", until: nil, comment: "c", author: "a") }
        #expect(throws: CLIReport.Malformed.self) { try CLIReport.silenceBody(matches: ["=x"], duration: "1h", until: nil, comment: "c", author: "a") }
    }
}
