import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// Bithumb's transfer status: the rows of `/public/assetsstatus/multichain/ALL` in the documented shape
/// (`bithumb/assetsstatus-multichain-ALL-docshape.json`, see PROVENANCE.md: no recorded answer was found)
/// read per `net_type`, 1 possible and 0 not; Bithumb's error envelope and bad bodies are errors naming
/// `bithumb/transfers`, never a suspension; and the poller over real HTTP fires and resolves kind `transfer`.
@Suite struct BithumbTransferStatusTests {
    static let fixture = "bithumb/assetsstatus-multichain-ALL-docshape.json"
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let btcRow = #"{"currency":"BTC","net_type":"BTC","deposit_status":1,"withdrawal_status":1}"#

    static func decode(_ body: Data, assets: Set<String>) throws -> TransferReport {
        try #require(TransferStatusRegistry[.bithumb]).decode(body, assets, receivedAt)
    }

    static func recorded() throws -> String { String(decoding: try Fixtures.data(fixture), as: UTF8.self) }

    /// The fixture with BTC's `deposit_status` and `withdrawal_status` replaced by these JSON values.
    static func withBTC(deposit: String, withdraw: String) throws -> Data {
        let text = try recorded()
        #expect(text.contains(btcRow))
        let row = #"{"currency":"BTC","net_type":"BTC","deposit_status":\#(deposit),"withdrawal_status":\#(withdraw)}"#
        return Data(text.replacingOccurrences(of: btcRow, with: row).utf8)
    }

    @Test func readsEachDirectionPerNetwork() throws {
        let report = try Self.decode(Fixtures.data(Self.fixture), assets: ["ADA", "BTC", "XRP", "DOGE", "ETH", "NOTLISTED"])
        #expect(report.exchange == .bithumb)
        #expect(TransferStatusRegistry[.bithumb]?.access == .publicEndpoint)
        let ada = try #require(report.statuses["ADA"])
        #expect(ada.networks == [NetworkTransferStatus(network: "ADA", withdraw: .ok, deposit: .ok)])
        #expect(ada.withdraw == .ok && ada.deposit == .ok && ada.checkedAt == Self.receivedAt)
        let xrp = try #require(report.statuses["XRP"])
        #expect(xrp.withdraw == .suspended && xrp.deposit == .ok, "XRP: withdrawal_status 0")
        let doge = try #require(report.statuses["DOGE"])
        #expect(doge.withdraw == .ok && doge.deposit == .suspended, "DOGE: deposit_status 0")
        #expect(report.statuses["NOTLISTED"] == .unknown(.bithumb, "NOTLISTED", checkedAt: Self.receivedAt))
    }

    @Test func aCoinWithOneOpenNetworkOfSeveralIsOk() throws {
        let body = try Fixtures.data(Self.fixture)
        let eth = try #require(try Self.decode(body, assets: ["ETH"]).statuses["ETH"])
        #expect(eth.networks.map(\.network) == ["ETH", "ARB_ETH"])
        #expect(eth.networks.first == NetworkTransferStatus(network: "ETH", withdraw: .suspended, deposit: .suspended))
        #expect(eth.withdraw == .ok && eth.deposit == .ok, "ARB_ETH is open both ways")
        // Both networks closed: suspended both ways.
        let closed = String(decoding: body, as: UTF8.self).replacingOccurrences(
            of: #""net_type":"ARB_ETH","deposit_status":1,"withdrawal_status":1"#, with: #""net_type":"ARB_ETH","deposit_status":0,"withdrawal_status":0"#)
        let none = try #require(try Self.decode(Data(closed.utf8), assets: ["ETH"]).statuses["ETH"])
        #expect(none.withdraw == .suspended && none.deposit == .suspended)
    }

    @Test func flagsAreReadAsBithumbDocumentsThem() throws {
        let strings = try #require(try Self.decode(Self.withBTC(deposit: #""1""#, withdraw: #""0""#), assets: ["BTC"]).statuses["BTC"])
        #expect(strings.deposit == .ok && strings.withdraw == .suspended, "\"1\"/\"0\" read as 1/0")
        // An undocumented value or a missing flag is unknown, never suspended.
        let odd = try #require(try Self.decode(Self.withBTC(deposit: "2", withdraw: "null"), assets: ["BTC"]).statuses["BTC"])
        #expect(odd.deposit == .unknown && odd.withdraw == .unknown)
        let lowerCase = try Self.recorded().replacingOccurrences(of: #""currency":"ADA""#, with: #""currency":"ada""#)
        #expect(try Self.decode(Data(lowerCase.utf8), assets: ["ADA"]).statuses["ADA"]?.withdraw == .ok)
    }

    @Test func badBodiesAreErrorsNamingTheSource() throws {
        let recordedError = String(decoding: try Fixtures.data("bithumb/error-5100-ccxtsrc.json"), as: UTF8.self)
        let bodies: [(String, SourceError.Kind)] = [
            (recordedError, .api), (#"{"status":"5600","message":"Please try again"}"#, .api), (#"{"status":5400,"message":"Database Fail"}"#, .api),
            (#"{"status":"0000","data":[]}"#, .empty), (#"{"status":"0000"}"#, .decode),
            (#"{"status":"0000","data":{"BTC":{"withdrawal_status":1,"deposit_status":1}}}"#, .decode),
            (#"{"status":"0000","data":[{"net_type":"BTC","deposit_status":1,"withdrawal_status":1}]}"#, .decode),
            (#"{"status":"0000","data":[{"currency":"BTC","net_type":"BTC","deposit_status":true,"withdrawal_status":1}]}"#, .decode),
            ("<html>502 Bad Gateway</html>", .decode), ("", .decode), ("null", .decode), ("[]", .decode), (#"{"status":"00"#, .decode),
        ]
        for (body, kind) in bodies {
            do {
                let report = try Self.decode(Data(body.utf8), assets: ["BTC"])
                Issue.record("\(body) was read as \(report.statuses["BTC"]?.withdraw.rawValue ?? "nothing")")
            } catch let error as SourceError {
                #expect(error.source == "bithumb/transfers", "\(body)")
                #expect(error.kind == kind, "\(body): \(error)")
            }
        }
        #expect(throws: SourceError(source: "bithumb/transfers", kind: .api, message: "status 5600: Please try again")) {
            try Self.decode(Data(#"{"status":"5600","message":"Please try again"}"#.utf8), assets: ["BTC"])
        }
    }

    @Test func pollerFiresAndResolvesOverHTTP() async throws {
        let t0 = Date(timeIntervalSince1970: 1_773_108_000)
        let clock = ManualClock(now: t0)
        let server = try await MockHTTPServer()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { Task { try? await client.shutdown(); await server.shutdown() } }
        let btc = Mutex<(withdraw: Int, failing: Bool)>((0, false))
        server.route("/public/assetsstatus/multichain/ALL") { _ in
            let state = btc.withLock { $0 }
            if state.failing { return .json(#"{"status":"5600","message":"Please try again"}"#) }
            return .data((try? Self.withBTC(deposit: "1", withdraw: "\(state.withdraw)")) ?? Data())
        }
        let world = try await TransferPollerWorld.start(.bithumb, assets: ["BTC", "ADA"], server: server, client: client, clock: clock)
        func events() -> [String] { world.sink.events.filter { $0.kind == .transfer }.map { "\($0.key) \($0.status)" } }

        // BTC cannot be withdrawn (its one network says withdrawal_status 0); ADA moves both ways.
        #expect(events() == ["transfer/bithumb/BTC firing"])
        let firing = try #require(world.sink.events.first { $0.kind == .transfer })
        #expect(firing.transfer?.withdraw == .suspended && firing.transfer?.deposit == .ok)
        #expect(firing.transfer?.networks.map(\.network) == ["BTC"])
        #expect(server.requests(to: "/public/assetsstatus/multichain/ALL").count == 1)
        let table = await world.runtime.loop.snapshot { $0.transferTable() }
        #expect(table.first { $0.exchange == .bithumb && $0.asset == "ADA" }?.withdraw == .ok)

        // Bithumb refuses (status 5600 in a 200): a failing source, the status as last known, nothing notified.
        btc.withLock { $0.failing = true }
        try await world.advance(60)
        #expect(events().count == 1)
        #expect(await world.runtime.loop.snapshot { $0.sourceHealth["bithumb/transfers"]?.consecutiveFailures } == 1)
        let kept = await world.runtime.loop.snapshot { $0.transferTable() }
        #expect(kept.first { $0.exchange == .bithumb && $0.asset == "BTC" }?.withdraw == .suspended)

        // Withdrawals resume: resolved once.
        btc.withLock { $0 = (1, false) }
        try await world.advance(60)
        try await world.advance(60)
        #expect(events() == ["transfer/bithumb/BTC firing", "transfer/bithumb/BTC resolved"])
        await world.stop()
    }
}
