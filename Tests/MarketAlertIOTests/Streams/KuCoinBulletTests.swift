import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// KuCoin's bullet: the answer read into a WebSocket URL, and the configuration that sends its stream to the
/// REST server that hands out endpoints.
@Suite struct KuCoinBulletTests {
    static func endpoint(_ body: String) throws(StreamEndpointError) -> URL {
        guard let request = KuCoinStream().endpointRequest else { throw StreamEndpointError("no endpoint request") }
        return try request.endpoint(Data(body.utf8))
    }

    @Test func theAnswerGivesTheFirstServerWithTheTokenInItsQuery() throws {
        // The shape of KuCoin's bullet answer (ccxt's `pro/kucoin.py` sample), token ending in `==`.
        let body = #"{"code":"200000","data":{"instanceServers":[{"pingInterval":18000,"endpoint":"wss://ws-api-spot.kucoin.com/","protocol":"websocket","encrypt":true,"pingTimeout":10000}],"token":"2neAiuYvAU61ZDXANAGAsiL4-iAExhsBXZxftpOeh_55i3Ysy2q2LEsEWU64mdzUOPusi34M_wGoSf7iNyEWJ1UQy47YbpY4zVdzilNP-Bj3iXzrjjGlWtiYB9J6i9GjsxUuhPw3BlrzazF6ghq4Lzf7scStOz3KkxjwpsOBCH4=.WNQmhZQeUKIkh97KYgU0Lg=="}}"#
        let url = try Self.endpoint(body)
        #expect(url.absoluteString.hasPrefix("wss://ws-api-spot.kucoin.com/?token=2neAiuYvAU61"))
        #expect(url.query(percentEncoded: true)?.hasSuffix("CH4%3D.WNQmhZQeUKIkh97KYgU0Lg%3D%3D") == true)
        #expect(url.query(percentEncoded: false)?.hasSuffix("CH4=.WNQmhZQeUKIkh97KYgU0Lg==") == true)
    }

    @Test func anAnswerWithoutAServerOrWithAnErrorCodeIsNoEndpoint() {
        let failures = [
            #"{"code":"400100","msg":"Too many requests"}"#,
            #"{"code":"200000","data":{"instanceServers":[],"token":"abc"}}"#,
            #"{"code":"200000","data":{"instanceServers":[{"endpoint":"https://not-a-websocket/"}],"token":"abc"}}"#,
            #"{"code":"200000","data":{"instanceServers":[{"endpoint":"wss://ws-api-spot.kucoin.com/"}],"token":""}}"#,
            "<html>502 Bad Gateway</html>",
        ]
        for body in failures {
            #expect(throws: StreamEndpointError.self, "\(body)") { try Self.endpoint(body) }
        }
    }

    @Test func aBaseURLOverrideCarriesTheStreamOnlyForKuCoin() throws {
        let settings = try ConfigLoader.parse(yaml: """
            exchanges:
              kucoin: { base_url: "http://127.0.0.1:9/" }
              gate: { base_url: "http://127.0.0.1:9/" }
              coinone: {}
            """).settings
        #expect(settings.exchanges[.kucoin]?.streamURL?.absoluteString == "http://127.0.0.1:9/")
        #expect(settings.exchanges[.gate]?.streamURL == nil)
        #expect(settings.exchanges[.coinone]?.streamURL?.absoluteString == "wss://stream.coinone.co.kr")
        let kucoin = try ConfigLoader.parse(yaml: "exchanges:\n  kucoin: {}\n").settings.exchanges[.kucoin]
        #expect(kucoin?.streamURL?.absoluteString == "https://api.kucoin.com")
    }
}
