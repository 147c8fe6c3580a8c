import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Every transfer-status adapter decodes its recorded answer (`Tests/Fixtures/<id>/`, see PROVENANCE.md):
/// per asset the directions, per network the exchange's flags, compared with ccxt's own parse where ccxt
/// has one (`*.expected.json`); an asset the answer does not list is unknown, never suspended.
@Suite struct TransferStatusFixtureTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    struct Case: Sendable, CustomTestStringConvertible {
        var fixture: String
        var exchange: ExchangeID
        var asset: String
        /// ccxt's parse has booleans for both directions (Coinbase's has none: it does not tell them apart).
        var oracleHasDirections = true
        var testDescription: String { fixture }
    }

    static let oracleCases: [Case] = [
        Case(fixture: "gate/spot-currencies-USDT-ccxtsrc.json", exchange: .gate, asset: "USDT"),
        Case(fixture: "htx/v2-reference-currencies-sxp-ccxtsrc.json", exchange: .htx, asset: "SXP"),
        Case(fixture: "kucoin/v3-currencies-CSP-ccxtsrc.json", exchange: .kucoin, asset: "CSP"),
        Case(fixture: "bitget/v2-spot-public-coins-NEIROETH-ccxtsrc.json", exchange: .bitget, asset: "NEIROETH"),
        Case(fixture: "coinone/v2-currencies-MATIC-ccxtsrc.json", exchange: .coinone, asset: "MATIC"),
        Case(fixture: "coinbase/currencies-USDT-ccxtsrc.json", exchange: .coinbase, asset: "USDT", oracleHasDirections: false),
        Case(fixture: "bitfinex/conf-tx-method-status-bitfinexnet.json", exchange: .bitfinex, asset: "DOT"),
        Case(fixture: "okx/asset-currencies-USDT-ccxtsrc.json", exchange: .okx, asset: "USDT"),
        Case(fixture: "bybit/asset-coin-query-info-BTC-ccxtsrc.json", exchange: .bybit, asset: "BTC"),
    ]

    struct Oracle: Decodable {
        struct Currency: Decodable {
            var deposit: Bool?
            var withdraw: Bool?
            var networks: [String: Network]?
        }
        struct Network: Decodable {
            var deposit: Bool?
            var withdraw: Bool?
        }
        var currencies: [String: Currency]
    }

    static func decode(_ exchange: ExchangeID, _ body: Data, assets: Set<String>) throws -> TransferReport {
        let adapter = try #require(TransferStatusRegistry[exchange])
        return try adapter.decode(body, assets, receivedAt)
    }

    @Test(arguments: oracleCases)
    func decodesAsCcxtParsesIt(_ item: Case) throws {
        let body = try Fixtures.data(item.fixture)
        let oracle = try JSONDecoder().decode(Oracle.self, from: Fixtures.data(item.fixture.replacingOccurrences(of: ".json", with: ".expected.json")))
        let expected = try #require(oracle.currencies[item.asset])
        let report = try Self.decode(item.exchange, body, assets: [item.asset, "NOTLISTED"])
        let status = try #require(report.statuses[item.asset])
        #expect(report.exchange == item.exchange)
        #expect(status.checkedAt == Self.receivedAt)
        if item.oracleHasDirections {
            #expect(status.withdraw == TransferState(enabled: expected.withdraw), "withdraw")
            #expect(status.deposit == TransferState(enabled: expected.deposit), "deposit")
            // Per network: as many as ccxt sees, each direction as ccxt reads it (Coinone has one, unnamed).
            if let networks = expected.networks, !networks.isEmpty {
                #expect(status.networks.count == networks.count)
                let withdraws = networks.values.map { TransferState(enabled: $0.withdraw) }.sorted { $0.rawValue < $1.rawValue }
                #expect(status.networks.map(\.withdraw).sorted { $0.rawValue < $1.rawValue } == withdraws)
            }
        } else {
            #expect(status.networks.count == expected.networks?.count)
            #expect(status.withdraw == .ok && status.deposit == .ok, "Coinbase's network is online")
        }
        #expect(report.statuses["NOTLISTED"]?.withdraw == .unknown)
        #expect(report.statuses["NOTLISTED"]?.deposit == .unknown)
    }

    /// Kraken's statuses have no network and ccxt reads only `active` from them; its codes are spelled ours.
    @Test func krakenReadsEnabledAssetsByTheirAltname() throws {
        let body = try Fixtures.data("kraken/public-Assets-ccxtsrc.json")
        let oracle = try JSONDecoder().decode(Oracle.self, from: Fixtures.data("kraken/public-Assets-ccxtsrc.expected.json"))
        #expect(oracle.currencies["BTC"] != nil && oracle.currencies["ETH"] != nil)
        let report = try Self.decode(.kraken, body, assets: ["BTC", "ETH", "ATOM", "DOGE"])
        for asset in ["BTC", "ETH", "ATOM"] {
            #expect(report.statuses[asset]?.withdraw == .ok && report.statuses[asset]?.deposit == .ok, "\(asset)")
            #expect(report.statuses[asset]?.networks.count == 1, "\(asset): the staked and margin variants are not counted")
        }
        #expect(report.statuses["DOGE"]?.withdraw == .unknown)
        // The documented other statuses, on the recorded row's shape.
        let text = String(decoding: body, as: UTF8.self)
        let limited = text.replacingOccurrences(of: #""altname":"XBT","decimals":10,"display_decimals":5,"margin_rate":0.01,"status":"enabled""#,
                                                with: #""altname":"XBT","decimals":10,"display_decimals":5,"margin_rate":0.01,"status":"deposit_only""#)
        #expect(limited != text)
        let btc = try Self.decode(.kraken, Data(limited.utf8), assets: ["BTC"]).statuses["BTC"]
        #expect(btc?.withdraw == .suspended && btc?.deposit == .ok)
    }

    @Test func kucoinsCaspianIsSuspendedBothWays() throws {
        let report = try Self.decode(.kucoin, Fixtures.data("kucoin/v3-currencies-CSP-ccxtsrc.json"), assets: ["CSP"])
        #expect(report.statuses["CSP"]?.isSuspended == true)
        #expect(report.statuses["CSP"]?.networks.map(\.network) == ["ERC20"])
    }

    @Test func binanceDecodesEveryNetworkOfTheCoin() throws {
        let report = try Self.decode(.binance, Fixtures.data("binance/capital-config-getall-BAT-ccxtsrc.json"), assets: ["BAT", "BTC"])
        let bat = try #require(report.statuses["BAT"])
        #expect(bat.networks.map(\.network) == ["BNB", "BSC", "ETH"])
        #expect(bat.withdraw == .ok && bat.deposit == .ok)
        #expect(report.statuses["BTC"]?.withdraw == .unknown)
        #expect(TransferStatusRegistry[.binance]?.access == .apiKey)
    }

    @Test func upbitDecodesTheDocumentedWalletList() throws {
        let report = try Self.decode(.upbit, Fixtures.data("upbit/status-wallet-docs.json"), assets: ["BTC", "USDT", "DOGE"])
        #expect(report.statuses["BTC"]?.withdraw == .ok)
        #expect(report.statuses["USDT"]?.networks.map(\.network) == ["ETH"])
        #expect(report.statuses["DOGE"]?.deposit == .unknown)
        #expect(TransferStatusRegistry[.upbit]?.access == .apiKey)
    }

    @Test(arguments: [ExchangeID.gate, .htx, .kucoin, .bitget, .coinone, .coinbase, .binance, .upbit, .kraken, .bitfinex, .okx, .bybit, .bithumb])
    func badBodiesAreErrorsNamingTheSource(_ exchange: ExchangeID) throws {
        for body in ["<html>down</html>", "{", "[]", "{\"code\":\"500\",\"msg\":\"busy\"}", "null"] {
            #expect(throws: SourceError.self, "\(exchange): \(body)") { try Self.decode(exchange, Data(body.utf8), assets: ["BTC"]) }
            do {
                _ = try Self.decode(exchange, Data(body.utf8), assets: ["BTC"])
            } catch let error as SourceError {
                #expect(error.source == "\(exchange.rawValue)/transfers")
            }
        }
    }
}
