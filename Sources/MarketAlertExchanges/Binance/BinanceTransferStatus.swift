import Foundation
import MarketAlertCore
import MarketAlertKit

/// Binance `GET /sapi/v1/capital/config/getall` (USER_DATA: a read-only key): per coin `depositAllEnable`,
/// `withdrawAllEnable` and `networkList[]` with `depositEnable`/`withdrawEnable` per network. Signed:
/// `timestamp` (ms) and `recvWindow` in the query, `signature` = hex HMAC-SHA256 of the query with the
/// secret key, the key in `X-MBX-APIKEY`.
package enum BinanceTransferStatus {
    package static let adapter = TransferStatusAdapter(
        exchange: .binance, access: .apiKey, request: request, decode: decode)

    static func request(_ credentials: TransferCredentials?, now: Date, signer: TransferSigner) throws(SourceError) -> TransferRequest {
        guard let credentials else {
            throw SourceError(source: TransferDecoding.source(.binance), kind: .api, message: "needs an API key (transfers.keys.binance)")
        }
        let millis = Int64((now.timeIntervalSince1970 * 1000).rounded())
        var query = [("timestamp", String(millis)), ("recvWindow", "10000")]
        let signed = query.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        query.append(("signature", signer.hexHMAC(key: credentials.secretKey.value, message: signed)))
        return TransferRequest(path: "/sapi/v1/capital/config/getall", query: query, headers: [("X-MBX-APIKEY", credentials.accessKey.value)])
    }

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let rows = try ExchangeJSON.decode([Coin].self, from: body, source: TransferDecoding.source(.binance))
        try TransferDecoding.requireRows(rows.count, .binance)
        var flat: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)] = []
        for row in rows {
            let networks = row.networkList ?? []
            if networks.isEmpty {
                flat.append((row.coin, row.coin, TransferState(enabled: row.withdrawAllEnable), TransferState(enabled: row.depositAllEnable)))
            }
            for network in networks {
                flat.append((row.coin, network.network, TransferState(enabled: network.withdrawEnable), TransferState(enabled: network.depositEnable)))
            }
        }
        return TransferDecoding.report(.binance, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    struct Coin: Decodable {
        var coin: String
        var depositAllEnable: Bool?
        var withdrawAllEnable: Bool?
        var networkList: [Network]?
    }

    struct Network: Decodable {
        var network: String
        var depositEnable: Bool?
        var withdrawEnable: Bool?
    }
}
