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

    /// OKX: Base64(HMAC-SHA256(secret, timestamp + "GET" + request path)) with the docs' example timestamp
    /// (2020-12-08T09:08:57.715Z) and example SecretKey. OKX publishes no resulting signature; the expected
    /// values were computed once, independently, with
    /// `printf '%s' '2020-12-08T09:08:57.715ZGET/api/v5/asset/currencies' | openssl dgst -sha256 -hmac '22582BD0CFF14C41EDBF1AB98506286D' -binary | base64`
    /// (OpenSSL 3.0.19; the same with `?ccy=BTC,ETH` appended), and the first also equals ccxt 4.5.90's
    /// `okx.sign('asset/currencies', ['private'], 'GET')` at that nonce.
    @Test func okxSignatureMatchesAnIndependentHMAC() {
        let secret = "22582BD0CFF14C41EDBF1AB98506286D"
        let time = "2020-12-08T09:08:57.715Z"
        #expect(OKXTransferStatus.timestamp(Date(timeIntervalSince1970: 1_607_418_537.715_4)) == time)
        #expect(OKXTransferStatus.timestamp(Date(timeIntervalSince1970: 1_607_418_537)) == "2020-12-08T09:08:57.000Z")
        let plain = OKXTransferStatus.signature(
            timestamp: time, method: "GET", requestPath: "/api/v5/asset/currencies", secretKey: secret, signer: Self.signer)
        #expect(plain == "nmk1ZQ5aEy1xaCdDx7p8eo2VLlUtRuaK0BdSl8YNJI8=")
        let withQuery = OKXTransferStatus.signature(
            timestamp: time, method: "GET", requestPath: "/api/v5/asset/currencies?ccy=BTC,ETH", secretKey: secret, signer: Self.signer)
        #expect(withQuery == "bvXbRl22xHLcU1jaF0o51+y0vkrx3WRJZSwDddPtv3E=")
    }

    /// Bybit v5: hex HMAC-SHA256(secret, timestamp + key + recv window + query string), with the docs' example
    /// timestamp (1672194580887). Bybit publishes no resulting signature; the expected values were computed
    /// once, independently, with
    /// `printf '%s' '1672194580887XXXXXXXXXX5000coin=ETH' | openssl dgst -sha256 -hmac 'YYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYY'`
    /// (OpenSSL 3.0.19; the same without a query and with window 10000), and the second also equals ccxt
    /// 4.5.90's `bybit.sign('v5/asset/coin/query-info', ['private'], 'GET')` at that nonce and window.
    @Test func bybitSignatureMatchesAnIndependentHMAC() {
        let secret = "YYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYY"
        let withQuery = BybitTransferStatus.signature(
            timestamp: "1672194580887", apiKey: "XXXXXXXXXX", recvWindow: "5000", queryString: "coin=ETH", secretKey: secret, signer: Self.signer)
        #expect(withQuery == "b1558bddba4fde46310853fd05b9419a192ce755e435715760b5c72e6fb6d9cd")
        let plain = BybitTransferStatus.signature(
            timestamp: "1672194580887", apiKey: "XXXXXXXXXX", recvWindow: "10000", queryString: "", secretKey: secret, signer: Self.signer)
        #expect(plain == "3cc62c65b8a60de4898efc46bf0310e7a19c59eb38e777d37a39b8a9129871af")
    }
}
