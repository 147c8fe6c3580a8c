import Foundation
import MarketAlertCore
import MarketAlertKit

/// Upbit `GET /v1/status/wallet` (a key: `Authorization: Bearer <JWT>`, HS256 over
/// `{"access_key","nonce"}` with the secret key): per currency and network (`net_type`) its `wallet_state`:
/// `working` (both ways), `withdraw_only`, `deposit_only`, `paused` or `unsupported` (neither).
package enum UpbitTransferStatus {
    package static let adapter = TransferStatusAdapter(exchange: .upbit, access: .apiKey, request: request, decode: decode)

    static func request(_ credentials: TransferCredentials?, now: Date, signer: TransferSigner) throws(SourceError) -> TransferRequest {
        guard let credentials else {
            throw SourceError(source: TransferDecoding.source(.upbit), kind: .api, message: "needs an API key (transfers.keys.upbit)")
        }
        let token = jwt(accessKey: credentials.accessKey.value, secretKey: credentials.secretKey.value, nonce: UUID().uuidString.lowercased(), signer: signer)
        return TransferRequest(path: "/v1/status/wallet", headers: [("Authorization", "Bearer \(token)")])
    }

    /// A compact HS256 JWT: base64url(header) . base64url(payload) . base64url(HMAC-SHA256).
    package static func jwt(accessKey: String, secretKey: String, nonce: String, signer: TransferSigner) -> String {
        let header = base64URL(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload: [String: String] = ["access_key": accessKey, "nonce": nonce]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = base64URL(Array((try? encoder.encode(payload)) ?? Data()))
        let signature = signer.hmacSHA256(Array(secretKey.utf8), Array("\(header).\(body)".utf8))
        return "\(header).\(body).\(base64URL(signature))"
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let rows = try ExchangeJSON.decode([Wallet].self, from: body, source: TransferDecoding.source(.upbit))
        try TransferDecoding.requireRows(rows.count, .upbit)
        let flat = rows.map { row in
            let (withdraw, deposit) = states(row.wallet_state)
            return (asset: row.currency, network: row.net_type ?? row.currency, withdraw: withdraw, deposit: deposit)
        }
        return TransferDecoding.report(.upbit, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    private static func states(_ walletState: String?) -> (TransferState, TransferState) {
        switch walletState {
        case "working": (.ok, .ok)
        case "withdraw_only": (.ok, .suspended)
        case "deposit_only": (.suspended, .ok)
        case "paused", "unsupported": (.suspended, .suspended)
        default: (.unknown, .unknown)
        }
    }

    struct Wallet: Decodable {
        var currency: String
        var wallet_state: String?
        var net_type: String?
    }
}
