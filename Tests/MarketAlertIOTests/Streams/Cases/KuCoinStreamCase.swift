import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// The token the local bullet server hands out; the connection must carry it in its query.
    static let kucoinToken = "2neAiuYvAU61ZDXANAGAsiL4-iAExhsBXZxftpOeh_55i3Ysy2q2LEsEWU64mdzUOPusi34M_wGoSf7iNyEWJ4aBZXpWhrmY9jKtqkdWoFa75w3istPvPtiYB9J6i9GjsxUuhPw3BlrzazF6ghq4L_dAV_ivjZAz6W85wIaPCmp7qR16mMBIEtHK_YE3s8fT.TvZV0B39qgmPVp3EltqFYfNNatA9ff_j-pg"

    /// Recorded KuCoin `/market/ticker` messages (cryptofeed, 2021-04-25), reached through the bullet
    /// handshake: the source is configured with a local REST server's URL and asks it for the endpoint.
    static let kucoin = StreamCase(
        name: "kucoin", exchange: .kucoin, path: "/?token=\(kucoinToken)",
        pairs: [
            MarketPair(base: "BCHSV", quote: "USDT"), MarketPair(base: "SNX", quote: "BTC"), MarketPair(base: "ETH", quote: "USDT"),
        ],
        makeSource: { url, clock, counters, staleAfter in KuCoinBulletSource(webSocket: url, clock: clock, counters: counters, staleAfter: staleAfter) },
        persona: StreamPersonas.of(.kucoin),
        expectedTopics: ["/market/ticker:BCHSV-USDT", "/market/ticker:ETH-USDT", "/market/ticker:SNX-BTC"],
        topics: { texts in
            Set(texts.flatMap { text -> [String] in
                guard let object = StreamPersonas.object(text), object["type"] as? String == "subscribe",
                      let topic = object["topic"] as? String, topic.hasPrefix("/market/ticker:") else { return [] }
                return topic.dropFirst("/market/ticker:".count).split(separator: ",").map { "/market/ticker:\($0)" }
            })
        },
        recorded: lines("streams/kucoin/welcome-20210425-cryptofeed.jsonl") + lines("streams/kucoin/ticker-BCHSV-USDT-SNX-BTC-20210425-cryptofeed.jsonl"),
        expected: [
            "SNX-BTC": Expected(bid: "0.00028678", ask: "0.00028717", last: "0.00028676"),
            "BCHSV-USDT": Expected(bid: "242.655", ask: "242.951", last: "243.65"),
        ],
        fresh: .text(#"{"data":{"sequence":"1","bestAsk":"2000.6","size":"0.1","bestBidSize":"1","price":"2000.5","time":1619378327000,"bestAskSize":"1","bestBid":"2000.4"},"subject":"trade.ticker","topic":"/market/ticker:ETH-USDT","type":"message"}"#),
        freshMarket: "ETH-USDT", freshExpected: Expected(bid: "2000.4", ask: "2000.6", last: "2000.5"),
        bad: [
            (.text(#"{"data":{"sequence":"2","bestAsk":"2000.6","bestBid":"2000.4","price":"0"},"subject":"trade.ticker","topic":"/market/ticker:ETH-USDT","type":"message"}"#), .invalidPrice),
            (.text(#"{"data":{"sequence":"3","bestAsk":"-1","bestBid":"2000.4","price":"2000.5"},"subject":"trade.ticker","topic":"/market/ticker:ETH-USDT","type":"message"}"#), .invalidPrice),
            (.text(#"{"data":{"sequence":"4","bestAsk":"2000.6","bestBid":"NaN","price":"2000.5"},"subject":"trade.ticker","topic":"/market/ticker:ETH-USDT","type":"message"}"#), .invalidPrice),
            (.text(#"{"data":{"sequence":"5","bestAsk":"2000.3","bestBid":"2000.4","price":"2000.5"},"subject":"trade.ticker","topic":"/market/ticker:ETH-USDT","type":"message"}"#), .crossedBook),
            (.text(#"{"data":{"sequence":"x","bestAsk":"2000.6","bestBid":"2000.4","price":"2000.5"},"subject":"trade.ticker","topic":"/market/ticker:ETH-USDT","type":"message"}"#), .malformed),
            (.text(#"{"data":["ETH-USDT"],"subject":"trade.ticker","topic":"/market/ticker:ETH-USDT","type":"message"}"#), .malformed),
            (.text(#"{"data":{"price":"2000.5"},"topic":"/market/level2:ETH-USDT","type":"message"}"#), .malformed),
            (.text(#"{"id":"1","data":{}}"#), .unknownMessage),
        ],
        keepalive: .clientPings(.text(#"{"id":"marketalertd-ping","type":"ping"}"#), interval: .seconds(15), window: .seconds(25)),
        refusable: "ETH-USDT")
}

/// KuCoin's stream as the daemon runs it, bullet first: a local REST server answers
/// `POST /api/v1/bullet-public` with the test WebSocket server (whose URL carries the token to hand out) as
/// the instance server, and the source, configured with the REST server's URL, asks it before each connection.
struct KuCoinBulletSource: StreamSource {
    let webSocket: URL
    let clock: ManualClock
    let counters: StreamCounters
    let staleAfter: Duration
    /// What the bullet's server asks for (KuCoin hands out 18 s and 10 s).
    var pingInterval = 18_000
    var pingTimeout = 10_000

    var exchange: ExchangeID { .kucoin }

    func run(pairs: Set<MarketPair>, emit: @escaping @Sendable (StreamUpdate) -> Void) async {
        guard let rest = try? await MockHTTPServer(), var endpoint = URLComponents(url: webSocket, resolvingAgainstBaseURL: false) else {
            emit(.down(reason: "the local bullet server did not start"))
            return
        }
        let token = endpoint.queryItems?.first { $0.name == "token" }?.value ?? ""
        endpoint.query = nil
        let bullet = KuCoinWire.bullet(endpoint: endpoint.url?.absoluteString ?? "", token: token)
            .replacingOccurrences(of: #""pingInterval":18000,"pingTimeout":10000"#, with: #""pingInterval":\#(pingInterval),"pingTimeout":\#(pingTimeout)"#)
        rest.route(KuCoinStream.bulletPath) { request in
            request.method == "POST" ? .json(bullet) : .json(#"{"code":"400001","msg":"method not allowed"}"#, status: 405)
        }
        let source = WebSocketStreamSource(
            protocol: KuCoinStream(), url: rest.baseURL, staleAfter: staleAfter, clock: clock, counters: counters, random: { 0.5 })
        await source.run(pairs: pairs, emit: emit)
        await rest.shutdown()
    }
}
