import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bybit v5 `GET /v5/asset/coin/query-info` (a key): per coin its `chains`, each with `chain` and the strings
/// `chainDeposit`/`chainWithdraw` ("1" normal, "0" suspended), in `{"retCode":0,"retMsg":…,"result":{"rows":
/// […]}}`; any other `retCode` is an API error (10003 invalid key, 10004 invalid signature, …), never a
/// suspension. Signed: `X-BAPI-SIGN` = hex HMAC-SHA256(secret, timestamp + key + recv window + query
/// string), the timestamp (ms), key and window in `X-BAPI-TIMESTAMP`, `X-BAPI-API-KEY`, `X-BAPI-RECV-WINDOW`.
package enum BybitTransferStatus {
    package static let adapter = TransferStatusAdapter(exchange: .bybit, access: .apiKey, request: request, decode: decode)

    static let path = "/v5/asset/coin/query-info"
    /// How long the signed request stays valid (ms; Bybit's default is 5000): a poll every few minutes can
    /// afford to tolerate a slower round trip.
    static let recvWindow = "10000"

    static func request(_ credentials: TransferCredentials?, now: Date, signer: TransferSigner) throws(SourceError) -> TransferRequest {
        guard let credentials else {
            throw SourceError(source: TransferDecoding.source(.bybit), kind: .api, message: "needs an API key (transfers.keys.bybit)")
        }
        let millis = String(Int64((now.timeIntervalSince1970 * 1000).rounded()))
        let apiKey = credentials.accessKey.value
        let sign = signature(
            timestamp: millis, apiKey: apiKey, recvWindow: recvWindow, queryString: "", secretKey: credentials.secretKey.value, signer: signer)
        return TransferRequest(path: path, headers: [
            ("X-BAPI-API-KEY", apiKey), ("X-BAPI-TIMESTAMP", millis), ("X-BAPI-RECV-WINDOW", recvWindow), ("X-BAPI-SIGN", sign),
        ])
    }

    /// Lower-case hex of HMAC-SHA256(secret, timestamp + apiKey + recvWindow + queryString).
    package static func signature(
        timestamp: String, apiKey: String, recvWindow: String, queryString: String, secretKey: String, signer: TransferSigner
    ) -> String {
        signer.hexHMAC(key: secretKey, message: timestamp + apiKey + recvWindow + queryString)
    }

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let source = TransferDecoding.source(.bybit)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        guard let code = envelope.retCode?.text, code == "0" else {
            throw SourceError(source: source, kind: .api, message: "retCode \(envelope.retCode?.text ?? "missing"): \(envelope.retMsg ?? "no message")")
        }
        guard let rows = envelope.result?.rows else { throw SourceError(source: source, kind: .decode, message: "result.rows: missing") }
        try TransferDecoding.requireRows(rows.count, .bybit)
        var flat: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)] = []
        for row in rows {
            for chain in row.chains ?? [] {
                flat.append((row.coin, chain.chain ?? chain.chainType ?? row.coin, state(chain.chainWithdraw), state(chain.chainDeposit)))
            }
        }
        return TransferDecoding.report(.bybit, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    private static func state(_ flag: WireCode?) -> TransferState {
        switch flag?.text {
        case "1": .ok
        case "0": .suspended
        default: .unknown
        }
    }

    struct Envelope: Decodable {
        var retCode: WireCode?
        var retMsg: String?
        var result: Result?
    }

    struct Result: Decodable {
        var rows: [Coin]?
    }

    struct Coin: Decodable {
        var coin: String
        var chains: [Chain]?
    }

    struct Chain: Decodable {
        var chain: String?
        var chainType: String?
        var chainDeposit: WireCode?
        var chainWithdraw: WireCode?
    }
}
