import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

extension StreamCase {
    /// Bithumb's documented ticker answer and a DEFAULT-format orderbook frame, sent as text.
    static let bithumb = StreamCase(
        name: "bithumb", exchange: .bithumb, path: "/websocket/v1",
        pairs: [MarketPair(base: "BTC", quote: "KRW"), MarketPair(base: "ETH", quote: "KRW")],
        makeSource: source(BithumbStream()),
        persona: StreamPersonas.of(.bithumb),
        expectedTopics: ["ticker:KRW-BTC", "ticker:KRW-ETH", "orderbook:KRW-BTC.1", "orderbook:KRW-ETH.1"],
        topics: upbitStyleTopics,
        recorded: lines("streams/bithumb/docs-examples.jsonl") + lines("streams/bithumb/orderbook-DEFAULT-constructed.jsonl"),
        expected: ["KRW-BTC": Expected(bid: "493100", ask: "493200", last: "493100")],
        fresh: .text(#"{"type":"orderbook","code":"KRW-ETH","total_ask_size":1,"total_bid_size":1,"orderbook_units":[{"ask_price":3500000,"bid_price":3499000,"ask_size":0.5,"bid_size":0.7}],"timestamp":1725927377300,"level":0,"stream_type":"REALTIME"}"#),
        freshMarket: "KRW-ETH", freshExpected: Expected(bid: "3499000", ask: "3500000"),
        bad: upbitStyleBad(simple: false),
        keepalive: .clientPings(.ping(Data()), interval: .seconds(30), window: .seconds(45)),
        liveOnFirstData: true)
}
