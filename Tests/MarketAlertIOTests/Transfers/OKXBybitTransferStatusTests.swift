import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// OKX's `/api/v5/asset/currencies` and Bybit's `/v5/asset/coin/query-info` decoded from their recorded
/// answers (`okx/asset-currencies-USDT-ccxtsrc.json`, `bybit/asset-coin-query-info-BTC-ccxtsrc.json`), with
/// one chain's flag turned off to read each direction's suspension; their error envelopes are API errors,
/// never suspensions; and their signed requests carry what each exchange checks.
@Suite struct OKXBybitTransferStatusTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let okxBody = (try? Fixtures.data("okx/asset-currencies-USDT-ccxtsrc.json")) ?? Data()
    static let bybitBody = (try? Fixtures.data("bybit/asset-coin-query-info-BTC-ccxtsrc.json")) ?? Data()

    static func decode(_ exchange: ExchangeID, _ text: String, assets: Set<String>) throws -> TransferReport {
        try #require(TransferStatusRegistry[exchange]).decode(Data(text.utf8), assets, receivedAt)
    }

    /// The recorded OKX body with the TRC20 row's (the first) `field` set to `value`.
    static func okx(trc20 field: String, _ value: Bool, erc20: Bool = true) -> String {
        let text = String(decoding: okxBody, as: UTF8.self)
        // The rows are flat objects: `},{` is the one place between them.
        let rows = text.components(separatedBy: "},{")
        guard rows.count == 2 else { return text }
        let first = rows[0].replacingOccurrences(of: "\"\(field)\":true", with: "\"\(field)\":\(value)")
        let second = rows[1].replacingOccurrences(of: "\"\(field)\":true", with: "\"\(field)\":\(erc20)")
        return first + "},{" + second
    }

    @Test func okxReadsEachChainAndNamesItsNetwork() throws {
        let report = try Self.decode(.okx, String(decoding: Self.okxBody, as: UTF8.self), assets: ["USDT", "BTC"])
        let usdt = try #require(report.statuses["USDT"])
        #expect(usdt.networks.map(\.network) == ["TRC20", "ERC20"])
        #expect(usdt.withdraw == .ok && usdt.deposit == .ok && usdt.checkedAt == Self.receivedAt)
        #expect(report.statuses["BTC"]?.withdraw == .unknown && report.statuses["BTC"]?.deposit == .unknown, "not listed: unknown")
        #expect(TransferStatusRegistry[.okx]?.access == .apiKey)
    }

    @Test func okxSuspensionsPerDirectionAndAnyActiveChain() throws {
        // Withdrawals off on both chains, deposits on: withdraw suspended only.
        let noWithdraw = try Self.decode(.okx, Self.okx(trc20: "canWd", false, erc20: false), assets: ["USDT"]).statuses["USDT"]
        #expect(noWithdraw?.withdraw == .suspended && noWithdraw?.deposit == .ok)
        let noDeposit = try Self.decode(.okx, Self.okx(trc20: "canDep", false, erc20: false), assets: ["USDT"]).statuses["USDT"]
        #expect(noDeposit?.deposit == .suspended && noDeposit?.withdraw == .ok)
        // One chain of two can withdraw: the direction is ok, the other chain says suspended.
        let oneActive = try #require(try Self.decode(.okx, Self.okx(trc20: "canWd", false), assets: ["USDT"]).statuses["USDT"])
        #expect(oneActive.withdraw == .ok)
        #expect(oneActive.networks.map(\.withdraw) == [.suspended, .ok])
    }

    @Test func bybitReadsTheRecordedCoinAndItsStringFlags() throws {
        let text = String(decoding: Self.bybitBody, as: UTF8.self)
        let btc = try #require(try Self.decode(.bybit, text, assets: ["BTC", "ETH"]).statuses["BTC"])
        #expect(btc.networks.map(\.network) == ["BTC"])
        #expect(btc.withdraw == .ok && btc.deposit == .ok)
        #expect(try Self.decode(.bybit, text, assets: ["ETH"]).statuses["ETH"]?.deposit == .unknown)
        #expect(TransferStatusRegistry[.bybit]?.access == .apiKey)

        let noWithdraw = try Self.decode(.bybit, text.replacingOccurrences(of: #""chainWithdraw":"1""#, with: #""chainWithdraw":"0""#), assets: ["BTC"])
        #expect(noWithdraw.statuses["BTC"]?.withdraw == .suspended && noWithdraw.statuses["BTC"]?.deposit == .ok)
        let noDeposit = try Self.decode(.bybit, text.replacingOccurrences(of: #""chainDeposit":"1""#, with: #""chainDeposit":"0""#), assets: ["BTC"])
        #expect(noDeposit.statuses["BTC"]?.deposit == .suspended && noDeposit.statuses["BTC"]?.withdraw == .ok)
        // A second chain (the recorded one copied as Lightning, withdrawals off) leaves withdrawals ok.
        let chain = try #require(text.range(of: #"{"chainType":"BTC""#).map { text[$0.lowerBound...] }?.prefix { $0 != "}" })
        let lightning = String(chain).replacingOccurrences(of: #""chain":"BTC""#, with: #""chain":"LIGHTNING""#)
            .replacingOccurrences(of: #""chainWithdraw":"1""#, with: #""chainWithdraw":"0""#) + "}"
        let two = text.replacingOccurrences(of: #"}]}]}"#, with: "}," + lightning + "]}]}")
        let status = try #require(try Self.decode(.bybit, two, assets: ["BTC"]).statuses["BTC"])
        #expect(status.networks.map(\.network) == ["BTC", "LIGHTNING"])
        #expect(status.withdraw == .ok && status.networks.map(\.withdraw) == [.ok, .suspended])
    }

    /// Error envelopes: OKX's recorded 50103 (no key), its documented 50111 (invalid key); Bybit's recorded
    /// 5004 and its documented 10003 (invalid key) — each an `.api` error naming the source, no status.
    @Test func errorEnvelopesAreAPIErrorsNotSuspensions() throws {
        let cases: [(ExchangeID, String, String)] = [
            (.okx, String(decoding: try Fixtures.data("okx/error-50103-ccxtsrc.json"), as: UTF8.self), "code 50103"),
            (.okx, #"{"code":"50111","msg":"Invalid OK-ACCESS-KEY","data":[]}"#, "code 50111"),
            (.bybit, String(decoding: try Fixtures.data("bybit/error-5004-server-timeout-ccxtsrc.json"), as: UTF8.self), "retCode 5004"),
            (.bybit, #"{"retCode":10003,"retMsg":"API key is invalid.","result":{},"retExtInfo":{},"time":1672194582264}"#, "retCode 10003"),
        ]
        for (exchange, body, expected) in cases {
            do {
                _ = try Self.decode(exchange, body, assets: ["BTC"])
                Issue.record("\(exchange): an error envelope was read as a status list")
            } catch let error as SourceError {
                #expect(error.source == "\(exchange.rawValue)/transfers")
                #expect(error.kind == .api, "\(error)")
                #expect(error.message.hasPrefix(expected), "\(error.message)")
            }
        }
        // A success envelope without the list, or with an empty one, is not a status list either.
        for (exchange, body) in [(ExchangeID.okx, #"{"code":"0","msg":""}"#), (.okx, #"{"code":"0","msg":"","data":[]}"#),
                                 (.bybit, #"{"retCode":0,"retMsg":"OK","result":{}}"#), (.bybit, #"{"retCode":0,"result":{"rows":[]}}"#)] {
            #expect(throws: SourceError.self, "\(body)") { try Self.decode(exchange, body, assets: ["BTC"]) }
        }
    }

    @Test func requestsNeedTheirKeysAndSayWhich() throws {
        let okx = try #require(TransferStatusRegistry[.okx])
        let bybit = try #require(TransferStatusRegistry[.bybit])
        let now = Date(timeIntervalSince1970: 1_607_418_537.715_4)
        for (adapter, key) in [(okx, "transfers.keys.okx"), (bybit, "transfers.keys.bybit")] {
            #expect(throws: SourceError.self) { try adapter.request(nil, now, TransferSigningTests.signer) }
            do { _ = try adapter.request(nil, now, TransferSigningTests.signer) } catch { #expect(error.message.contains(key)) }
        }
        let noPassphrase = TransferCredentials(accessKey: "okx-key-1", secretKey: "okx-secret-1")
        do {
            _ = try okx.request(noPassphrase, now, TransferSigningTests.signer)
            Issue.record("an OKX request without its passphrase was built")
        } catch {
            #expect(error.message.contains("transfers.keys.okx.passphrase_env"))
            #expect(!error.message.contains("okx-secret-1") && !error.message.contains("okx-key-1"))
        }
        let signed = try okx.request(
            TransferCredentials(accessKey: "okx-key-1", secretKey: "okx-secret-1", passphrase: "okx-pass-1"), now, TransferSigningTests.signer)
        #expect(signed.path == "/api/v5/asset/currencies" && signed.query.isEmpty)
        #expect(signed.headers.map(\.0) == ["OK-ACCESS-KEY", "OK-ACCESS-SIGN", "OK-ACCESS-TIMESTAMP", "OK-ACCESS-PASSPHRASE"])
        #expect(signed.headers.first { $0.0 == "OK-ACCESS-TIMESTAMP" }?.1 == "2020-12-08T09:08:57.715Z")
        let bybitSigned = try bybit.request(TransferCredentials(accessKey: "bybit-key-1", secretKey: "bybit-secret-1"), now, TransferSigningTests.signer)
        #expect(bybitSigned.path == "/v5/asset/coin/query-info" && bybitSigned.query.isEmpty)
        #expect(bybitSigned.headers.first { $0.0 == "X-BAPI-TIMESTAMP" }?.1 == "1607418537715")
        #expect(!bybitSigned.headers.contains { $0.1.contains("bybit-secret-1") }, "the secret itself is never sent")
    }
}
