import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// Bitfinex's transfer status: the method map and the status list of one conf request
/// (`bitfinex/conf-tx-method-status-bitfinexnet.json`, see PROVENANCE.md) read per method (a network each),
/// currencies spelled ours (Tether is `UST`), compared with ccxt's parse; bad bodies are errors naming
/// `bitfinex/transfers`, never a suspension; and the poller over real HTTP fires and resolves kind `transfer`.
@Suite struct BitfinexTransferStatusTests {
    static let fixture = "bitfinex/conf-tx-method-status-bitfinexnet.json"
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let tetherMethods = ["TETHERUSO", "TETHERUSE", "TETHERUSX", "TETHERUSL", "TETHERUSS", "TETHERUSDTALG", "TETHERUSDTBCH"]

    static func decode(_ body: Data, assets: Set<String>) throws -> TransferReport {
        try #require(TransferStatusRegistry[.bitfinex]).decode(body, assets, receivedAt)
    }

    static func recorded() throws -> String { String(decoding: try Fixtures.data(fixture), as: UTF8.self) }

    /// The recorded body with `method`'s `DEP_STATUS, WD_STATUS` in the status list (after the method map) replaced.
    static func withStatus(_ text: String, _ method: String, deposit: Int, withdraw: Int) throws -> String {
        let statusList = try #require(text.range(of: "]]],[["), "the end of the method map")
        let row = try #require(text.range(of: "[\"\(method)\",", range: statusList.upperBound..<text.endIndex), "\(method)'s status row")
        let afterDeposit = try #require(text[row.upperBound...].firstIndex(of: ","))
        let afterWithdraw = try #require(text[text.index(after: afterDeposit)...].firstIndex(of: ","))
        return text.replacingCharacters(in: row.upperBound..<afterWithdraw, with: "\(deposit),\(withdraw)")
    }

    @Test func decodesEveryCurrencyAsCcxtParsesIt() throws {
        let oracle = try JSONDecoder().decode(
            TransferStatusFixtureTests.Oracle.self, from: Fixtures.data(Self.fixture.replacingOccurrences(of: ".json", with: ".expected.json")))
        #expect(Set(oracle.currencies.keys) == ["USDT", "DOT", "MTO", "BTC", "IOTA", "DASH", "POA"])
        let report = try Self.decode(Fixtures.data(Self.fixture), assets: Set(oracle.currencies.keys))
        for (asset, expected) in oracle.currencies {
            let status = try #require(report.statuses[asset])
            #expect(status.withdraw == TransferState(enabled: expected.withdraw), "\(asset) withdraw")
            #expect(status.deposit == TransferState(enabled: expected.deposit), "\(asset) deposit")
            #expect(status.networks.count == expected.networks?.count, "\(asset): a network per method")
        }
        // ccxt reads a method without a status row as false; Bitfinex says nothing about it, so it is unknown.
        let omg = report.statuses["USDT"]?.networks.first { $0.network == "TETHERUSDTOMG" }
        #expect(omg == NetworkTransferStatus(network: "TETHERUSDTOMG", withdraw: .unknown, deposit: .unknown))
    }

    @Test func readsEachDirectionPerMethodUnderOurCodes() throws {
        let report = try Self.decode(Fixtures.data(Self.fixture), assets: ["BTC", "DOT", "MTO", "POA", "USDT", "IOTA", "NOTLISTED"])
        #expect(report.exchange == .bitfinex)
        #expect(report.statuses["BTC"]?.networks == [NetworkTransferStatus(network: "BITCOIN", withdraw: .ok, deposit: .ok)])
        #expect(report.statuses["DOT"]?.withdraw == .suspended && report.statuses["DOT"]?.deposit == .ok, "DOT: [1, 0]")
        #expect(report.statuses["MTO"]?.withdraw == .ok && report.statuses["MTO"]?.deposit == .suspended, "MTO: [0, 1]")
        #expect(report.statuses["POA"]?.isSuspended == true && report.statuses["POA"]?.withdraw == .suspended)
        #expect(report.statuses["USDT"]?.networks.map(\.network) == Self.tetherMethods + ["TETHERUSDTOMG"], "Bitfinex's UST, in map order")
        #expect(report.statuses["USDT"]?.withdraw == .ok && report.statuses["USDT"]?.deposit == .ok)
        #expect(report.statuses["IOTA"]?.networks.map(\.network) == ["IOTA"], "Bitfinex's IOT")
        #expect(report.statuses["NOTLISTED"] == .unknown(.bitfinex, "NOTLISTED", checkedAt: Self.receivedAt))
    }

    @Test func aCurrencyWithOneActiveMethodOfSeveralIsOk() throws {
        var text = try Self.recorded()
        for method in Self.tetherMethods where method != "TETHERUSX" { text = try Self.withStatus(text, method, deposit: 0, withdraw: 0) }
        let oneOpen = try #require(try Self.decode(Data(text.utf8), assets: ["USDT"]).statuses["USDT"])
        #expect(oneOpen.withdraw == .ok && oneOpen.deposit == .ok)
        #expect(oneOpen.networks.filter { $0.withdraw == .suspended }.count == 6)
        text = try Self.withStatus(text, "TETHERUSX", deposit: 1, withdraw: 0)
        let noneOut = try #require(try Self.decode(Data(text.utf8), assets: ["USDT"]).statuses["USDT"])
        #expect(noneOut.withdraw == .suspended && noneOut.deposit == .ok)
    }

    @Test func badBodiesAreErrorsNamingTheSource() throws {
        let bodies: [(String, SourceError.Kind)] = [
            (#"["error",10020,"conf: invalid"]"#, .api), ("[[],[]]", .empty), (#"[[["BITCOIN",["BTC"]]]]"#, .decode),
            (#"[[["BITCOIN",["BTC"]]],[["BITCOIN","1",1]]]"#, .decode), (#"[[["BITCOIN","BTC"]],[["BITCOIN",1,1]]]"#, .decode),
            (#"{"error":"ERR_RATE_LIMIT"}"#, .decode), ("<html>502 Bad Gateway</html>", .decode), ("", .decode),
        ]
        for (body, kind) in bodies {
            do {
                let report = try Self.decode(Data(body.utf8), assets: ["BTC"])
                Issue.record("\(body) was read as \(report.statuses["BTC"]?.withdraw.rawValue ?? "nothing")")
            } catch let error as SourceError {
                #expect(error.source == "bitfinex/transfers", "\(body)")
                #expect(error.kind == kind, "\(body): \(error)")
            }
        }
        #expect(throws: SourceError(source: "bitfinex/transfers", kind: .api, message: "error 10020: conf: invalid")) {
            try Self.decode(Data(#"["error",10020,"conf: invalid"]"#.utf8), assets: ["BTC"])
        }
    }

    @Test func pollerFiresAndResolvesOverHTTP() async throws {
        let t0 = Date(timeIntervalSince1970: 1_773_108_000)
        let clock = ManualClock(now: t0)
        let server = try await MockHTTPServer()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { Task { try? await client.shutdown(); await server.shutdown() } }
        let recorded = try Self.recorded()
        let dot = Mutex<(withdraw: Int, failing: Bool)>((0, false))  // the recorded DOT row is [1, 0]
        server.route("/v2/conf/pub:map:tx:method,pub:info:tx:status") { _ in
            let state = dot.withLock { $0 }
            if state.failing { return .json(#"["error",10020,"conf: invalid"]"#, status: 500) }
            return .json((try? Self.withStatus(recorded, "DOT", deposit: 1, withdraw: state.withdraw)) ?? "")
        }
        let world = try await TransferPollerWorld.start(.bitfinex, assets: ["DOT", "BTC"], server: server, client: client, clock: clock)
        func events() -> [String] { world.sink.events.filter { $0.kind == .transfer }.map { "\($0.key) \($0.status)" } }

        // DOT cannot be withdrawn (its one method, DOT, says [1, 0]); BTC moves both ways.
        #expect(events() == ["transfer/bitfinex/DOT firing"])
        let firing = try #require(world.sink.events.first { $0.kind == .transfer })
        #expect(firing.transfer?.withdraw == .suspended && firing.transfer?.deposit == .ok)
        #expect(firing.transfer?.networks.map(\.network) == ["DOT"])
        #expect(server.requests(to: "/v2/conf/pub:map:tx:method,pub:info:tx:status").count == 1, "one GET for both lists")
        let table = await world.runtime.loop.snapshot { $0.transferTable() }
        #expect(table.first { $0.exchange == .bitfinex && $0.asset == "BTC" }?.withdraw == .ok)

        // Bitfinex fails: a failing source, the status as last known, nothing notified.
        dot.withLock { $0.failing = true }
        try await world.advance(60)
        #expect(events().count == 1)
        #expect(await world.runtime.loop.snapshot { $0.sourceHealth["bitfinex/transfers"]?.consecutiveFailures } == 1)

        // Withdrawals resume: resolved once.
        dot.withLock { $0 = (1, false) }
        try await world.advance(60)
        try await world.advance(60)
        #expect(events() == ["transfer/bitfinex/DOT firing", "transfer/bitfinex/DOT resolved"])
        await world.stop()
    }
}
