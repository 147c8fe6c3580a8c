import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

@Suite("IPO TWSE publicForm source over HTTP")
struct TWSEPublicFormSourceTests {
    func source(_ server: MockHTTPServer) -> TWSEPublicFormSource {
        let clock = ManualClock(now: IPOTestKit.instant("2026-03-24T12:28:35Z"))
        let settings = IPOTestKit.settings(server)
        return TWSEPublicFormSource(
            settings: settings.sources[0], calendar: MarketCalendar(timeZone: IPOTestKit.taipei),
            excludeNamePatterns: settings.excludeNamePatterns, fetcher: IPOTestKit.fetcher(clock))
    }

    @Test func fetchesTheRecordedAnswer() async throws {
        let server = try await MockHTTPServer()
        defer { Task { await server.shutdown() } }
        server.route("/rwd/zh/announcement/publicForm", response: .data(try Fixtures.data("twse/publicForm-reconstructed.json")))
        let result = try await source(server).fetch(year: 2026)
        #expect(result.offerings.count == 45 && result.excluded == 30)
        let request = try #require(server.requests.first)
        #expect(request.path == "/rwd/zh/announcement/publicForm")
        #expect(IPOTestKit.year(of: request) == 2026)
        #expect(request.query?.contains("response=json") == true)
    }

    @Test func fallsBackToTheOlderPathOn404() async throws {
        let server = try await MockHTTPServer()
        defer { Task { await server.shutdown() } }
        server.route("/announcement/publicForm", response: .data(try Fixtures.data("twse/publicForm-reconstructed.json")))
        let result = try await source(server).fetch(year: 2026)
        #expect(result.offerings.count == 45)
        #expect(server.requests.map(\.path) == ["/rwd/zh/announcement/publicForm", "/announcement/publicForm"])
    }

    @Test func noDataAnswerIsAnEmptyList() async throws {
        let server = try await MockHTTPServer()
        defer { Task { await server.shutdown() } }
        server.route("/rwd/zh/announcement/publicForm", response: .json(IPOTestKit.noData))
        let result = try await source(server).fetch(year: 2027)
        #expect(result.offerings.isEmpty && result.issues.isEmpty)
        server.route("/rwd/zh/announcement/publicForm", response: .json(#"{"stat":"OK","fields":[],"data":[]}"#))
        #expect(try await source(server).fetch(year: 2027).offerings.isEmpty)
    }

    @Test(arguments: [
        (MockHTTPServer.Response(status: 200, headers: [("Content-Type", "text/html")], body: Data("<html><body>請稍後再試</body></html>".utf8)), SourceError.Kind.decode),
        (.json(#"{"stat":"OK","fields":["序號"],"da"#), .decode),
        (.json(#"{"fields":[],"data":[]}"#), .decode),
        (.json(#"{"stat":"OK","fields":["序號","證券名稱"],"data":[["1","x"]]}"#), .decode),
        (.json(#"{"stat":"OK","data":[["1","x"]]}"#), .decode),
        (.json(#"{"stat":"查詢日期大於今日，請重新查詢!"}"#), .api),
        (.json("<html>oops</html>", status: 500), .http(status: 500)),
    ])
    func badAnswersAreTypedErrors(response: MockHTTPServer.Response, kind: SourceError.Kind) async throws {
        let server = try await MockHTTPServer()
        defer { Task { await server.shutdown() } }
        server.route("/rwd/zh/announcement/publicForm", response: response)
        let error = await #expect(throws: SourceError.self) { try await source(server).fetch(year: 2026) }
        #expect(error?.kind == kind)
        #expect(error?.source == "twse")
    }

    @Test func numberAndNullCellsAreTolerated() async throws {
        let server = try await MockHTTPServer()
        defer { Task { await server.shutdown() } }
        let body = #"{"stat":"OK","fields":["證券代號","證券名稱","申購開始日","申購結束日","承銷價(元)"],"data":[[7795,"長廣","115/01/06","115/01/08",125.5],["3543",null,"115/01/02","115/01/06",null]]}"#
        server.route("/rwd/zh/announcement/publicForm", response: .json(body))
        let result = try await source(server).fetch(year: 2026)
        #expect(result.offerings.map(\.code) == ["7795", "3543"])
        #expect(result.offerings.first?.offerPrice == Decimal(string: "125.5"))
        #expect(result.offerings.last?.name == "" && result.offerings.last?.offerPrice == nil)
    }
}
