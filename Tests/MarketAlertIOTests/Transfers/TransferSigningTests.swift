import Crypto
import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// The private endpoints' signatures against their documentation and an independent check.
@Suite struct TransferSigningTests {
    static let signer = TransferSigner { key, message in
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    /// Binance's documented example (SIGNED endpoint security): this key, this query, this signature.
    @Test func binanceSignatureMatchesTheDocumentedExample() {
        let secret = "NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j"
        let query = "symbol=LTCBTC&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=0.1&recvWindow=5000&timestamp=1499827319559"
        #expect(Self.signer.hexHMAC(key: secret, message: query) == "c8db56825ae71d6d79447849e617115f4a920fa2acdcab2b053c4b2838bd6b71")
    }

    /// Upbit's JWT: HS256 header, the access key and nonce in the payload, a signature over both parts that
    /// verifies with the secret key.
    @Test func upbitTokenIsAVerifiableHS256JWT() throws {
        let token = UpbitTransferStatus.jwt(accessKey: "access-key-1", secretKey: "secret-key-1", nonce: "n-1", signer: Self.signer)
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        func decoded(_ part: String) throws -> Data {
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            return try #require(Data(base64Encoded: text))
        }
        let header = try JSONSerialization.jsonObject(with: decoded(parts[0])) as? [String: String]
        #expect(header == ["alg": "HS256", "typ": "JWT"])
        let payload = try JSONSerialization.jsonObject(with: decoded(parts[1])) as? [String: String]
        #expect(payload == ["access_key": "access-key-1", "nonce": "n-1"])
        let valid = HMAC<SHA256>.isValidAuthenticationCode(
            try decoded(parts[2]), authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: SymmetricKey(data: Data("secret-key-1".utf8)))
        #expect(valid)
    }
}
