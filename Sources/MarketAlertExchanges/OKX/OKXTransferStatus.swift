import Foundation
import MarketAlertCore
import MarketAlertKit

/// OKX v5 `GET /api/v5/asset/currencies` (funding account, Read permission): one row per currency and chain,
/// `ccy`, `chain` (`USDT-TRC20`: the currency, a dash, the network) and the booleans `canDep`/`canWd`, in
/// `{"code":"0","msg":"","data":[…]}`; any other code is an API error (50111 invalid key, 50113 invalid
/// signature, …), never a suspension. Signed: `OK-ACCESS-SIGN` = Base64(HMAC-SHA256(secret, timestamp +
/// "GET" + request path with its query + body)), the GET's body empty; `OK-ACCESS-TIMESTAMP` the same
/// timestamp, ISO 8601 UTC with milliseconds; the key and its passphrase in `OK-ACCESS-KEY`/`-PASSPHRASE`.
package enum OKXTransferStatus {
    package static let adapter = TransferStatusAdapter(exchange: .okx, access: .apiKey, request: request, decode: decode)

    static let path = "/api/v5/asset/currencies"

    static func request(_ credentials: TransferCredentials?, now: Date, signer: TransferSigner) throws(SourceError) -> TransferRequest {
        let source = TransferDecoding.source(.okx)
        guard let credentials else { throw SourceError(source: source, kind: .api, message: "needs an API key (transfers.keys.okx)") }
        guard let passphrase = credentials.passphrase else {
            throw SourceError(source: source, kind: .api, message: "needs the key's passphrase (transfers.keys.okx.passphrase_env)")
        }
        let time = timestamp(now)
        let sign = signature(timestamp: time, method: "GET", requestPath: path, secretKey: credentials.secretKey.value, signer: signer)
        return TransferRequest(path: path, headers: [
            ("OK-ACCESS-KEY", credentials.accessKey.value), ("OK-ACCESS-SIGN", sign), ("OK-ACCESS-TIMESTAMP", time),
            ("OK-ACCESS-PASSPHRASE", passphrase.value),
        ])
    }

    /// `2020-12-08T09:08:57.715Z`: UTC, milliseconds always three digits (truncated, as the header is also what
    /// is signed).
    package static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
        let whole = Date(timeIntervalSince1970: TimeInterval(fraction < 0 ? seconds - 1 : seconds))
        var text = whole.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        if text.hasSuffix("Z") { text.removeLast() }
        let digits = String((fraction + 1000) % 1000)
        return text + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Base64 of HMAC-SHA256(secret, timestamp + method + requestPath + body).
    package static func signature(
        timestamp: String, method: String, requestPath: String, body: String = "", secretKey: String, signer: TransferSigner
    ) -> String {
        Data(signer.hmacSHA256(Array(secretKey.utf8), Array((timestamp + method + requestPath + body).utf8))).base64EncodedString()
    }

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let source = TransferDecoding.source(.okx)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        guard let code = envelope.code?.text, code == "0" else {
            throw SourceError(source: source, kind: .api, message: "code \(envelope.code?.text ?? "missing"): \(envelope.msg ?? "no message")")
        }
        guard let data = envelope.data else { throw SourceError(source: source, kind: .decode, message: "data: missing") }
        try TransferDecoding.requireRows(data.count, .okx)
        let flat = data.map { row in
            (asset: row.ccy, network: network(row.chain, currency: row.ccy), withdraw: TransferState(enabled: row.canWd),
             deposit: TransferState(enabled: row.canDep))
        }
        return TransferDecoding.report(.okx, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    /// `USDT-TRC20` → `TRC20`, `USDT-Avalanche C-Chain` → `Avalanche C-Chain`; a chain without the prefix as
    /// it is; none (a fiat row) → the currency.
    static func network(_ chain: String?, currency: String) -> String {
        guard let chain, !chain.isEmpty else { return currency }
        let prefix = currency + "-"
        if chain.count > prefix.count, chain.uppercased().hasPrefix(prefix.uppercased()) { return String(chain.dropFirst(prefix.count)) }
        return chain
    }

    struct Envelope: Decodable {
        var code: WireCode?
        var msg: String?
        var data: [Chain]?
    }

    struct Chain: Decodable {
        var ccy: String
        var chain: String?
        var canDep: Bool?
        var canWd: Bool?
    }
}
