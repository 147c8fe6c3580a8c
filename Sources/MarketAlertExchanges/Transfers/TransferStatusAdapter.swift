import Foundation
import MarketAlertCore
import MarketAlertKit

/// How one exchange publishes deposit and withdrawal status: the request (signed for a private endpoint)
/// and the decoding of its answer into a `TransferReport` for the assets asked for. Each exchange's folder
/// defines its own (`<Name>TransferStatus.swift`), named by its descriptor (`ExchangeDescriptor.transferStatus`).
package struct TransferStatusAdapter: Sendable {
    package enum Access: Sendable, Equatable {
        /// A public endpoint: no key.
        case publicEndpoint
        /// Published only to an API key (read-only is enough): without one the status stays unknown.
        case apiKey
    }

    package var exchange: ExchangeID
    package var access: Access
    /// The request at `now`; `credentials` is non-nil for `.apiKey` adapters.
    package var request: @Sendable (_ credentials: TransferCredentials?, _ now: Date, _ signer: TransferSigner) throws(SourceError) -> TransferRequest
    /// Decodes an answer: every asset of `assets` gets a status (unknown when not listed).
    package var decode: @Sendable (_ body: Data, _ assets: Set<String>, _ receivedAt: Date) throws(SourceError) -> TransferReport

    package init(
        exchange: ExchangeID, access: Access,
        request: @escaping @Sendable (TransferCredentials?, Date, TransferSigner) throws(SourceError) -> TransferRequest,
        decode: @escaping @Sendable (Data, Set<String>, Date) throws(SourceError) -> TransferReport
    ) {
        self.exchange = exchange
        self.access = access
        self.request = request
        self.decode = decode
    }

    /// A public GET of `path`.
    package static func publicGET(
        _ exchange: ExchangeID, path: String, query: [(String, String)] = [],
        decode: @escaping @Sendable (Data, Set<String>, Date) throws(SourceError) -> TransferReport
    ) -> TransferStatusAdapter {
        TransferStatusAdapter(
            exchange: exchange, access: .publicEndpoint, request: { _, _, _ in TransferRequest(path: path, query: query) }, decode: decode)
    }
}

/// One GET under the exchange's base URL.
package struct TransferRequest: Sendable {
    package var path: String
    package var query: [(String, String)]
    package var headers: [(String, String)]

    package init(path: String, query: [(String, String)] = [], headers: [(String, String)] = []) {
        self.path = path
        self.query = query
        self.headers = headers
    }
}

/// A read-only API key's values (resolved from the secrets `transfers.keys` names): they print as
/// `<redacted>`, and every error of a request made with them is scrubbed of them (`scrubbed`).
package struct TransferCredentials: Sendable {
    package var accessKey: SecretValue
    package var secretKey: SecretValue
    package var passphrase: SecretValue?

    package init(accessKey: String, secretKey: String, passphrase: String? = nil) {
        self.accessKey = SecretValue(accessKey)
        self.secretKey = SecretValue(secretKey)
        self.passphrase = passphrase.map(SecretValue.init)
    }

    /// `error` without any of the three values (any case, percent-encoded, or cut off at the end).
    package func scrubbed(_ error: SourceError) -> SourceError {
        var result = secretKey.scrubbed(accessKey.scrubbed(error))
        if let passphrase { result = passphrase.scrubbed(result) }
        return result
    }
}

/// HMAC-SHA256, given by the daemon (this target builds without a crypto library).
package struct TransferSigner: Sendable {
    package var hmacSHA256: @Sendable (_ key: [UInt8], _ message: [UInt8]) -> [UInt8]

    package init(hmacSHA256: @escaping @Sendable ([UInt8], [UInt8]) -> [UInt8]) { self.hmacSHA256 = hmacSHA256 }

    /// Lower-case hex of the HMAC (Binance's `signature`).
    package func hexHMAC(key: String, message: String) -> String {
        hmacSHA256(Array(key.utf8), Array(message.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Decoding helpers shared by the adapters.
package enum TransferDecoding {
    /// Rows of `(asset, network, withdraw, deposit)` grouped by asset (upper case), for the assets asked for.
    package static func report(
        _ exchange: ExchangeID, receivedAt: Date, assets: Set<String>,
        rows: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)]
    ) -> TransferReport {
        var decoded: [String: [NetworkTransferStatus]] = [:]
        for row in rows {
            let asset = row.asset.uppercased()
            guard assets.contains(asset) else { continue }
            decoded[asset, default: []].append(NetworkTransferStatus(network: row.network, withdraw: row.withdraw, deposit: row.deposit))
        }
        return TransferReport(exchange: exchange, checkedAt: receivedAt, assets: assets, decoded: decoded)
    }

    /// A body that lists no asset at all is not a status list (an error page in a 200, a changed API).
    package static func requireRows(_ count: Int, _ exchange: ExchangeID) throws(SourceError) {
        if count == 0 { throw SourceError(source: "\(exchange.rawValue)/transfers", kind: .empty, message: "the status list is empty") }
    }

    package static func source(_ exchange: ExchangeID) -> String { "\(exchange.rawValue)/transfers" }
}
