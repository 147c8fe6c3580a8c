import Foundation
import MarketAlertCore

/// HTX as a peer: `/market/tickers` (always the whole spot list), `market.<symbol>.ticker` frames, one
/// `subbed` answer per topic, every server message gzip-compressed in a binary frame; the client's
/// `{"pong":…}` answers the server's pings and gets no reply.
package enum HTXWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USDT",
        rest: RESTPeer(
            paths: [path, HTXMarketList.path],
            shapes: [
                RecordedShape(fixture: "htx/market-tickers-ccxtsrc.json", text: envelope.recorded),
                RecordedShape(fixture: "htx/v2-settings-common-symbols-docshape.json", text: symbols.row.render([:])),
            ],
            body: { rows, now in envelope.body(rows: rows.map(row), numbers: ["ts": now]) },
            answer: { request, book in
                let rows = { book.live().map(\.row) + book.others }
                switch request.path {
                case path: return .json(envelope.body(rows: rows().map(row), numbers: ["ts": request.nowMillis]))
                case HTXMarketList.path: return .json(symbols.body(rows: rows().map(symbol)))
                default: return nil
                }
            },
            startsPoll: { request, _ in request.path == path ? true : request.path == HTXMarketList.path ? false : nil }),
        stream: StreamPeer(path: "/ws", binary: true, tickerFrame: frame, persona: persona, encode: encode),
        fixtures: WireFixtures(rest: "htx", stream: "streams/htx"))

    static let path = "/market/tickers"

    /// `htx/v2-settings-common-symbols-docshape.json` (its online row): the market list (`HTXMarketList`)
    /// lists every market of the book as an online symbol.
    static let symbols = ListEnvelope(
        constant: #"{"status":"ok","data":[{"tags":"","state":"online","wr":"1.5","sc":"btcusdt","bcdn":"BTC","qcdn":"USDT","tpp":2,"tap":6,"fp":8,"te":true,"sp":"main","bc":"btc","qc":"usdt","toa":1514779200000,"ttp":8,"w":999400000,"lr":5,"dn":"BTC/USDT"}],"ts":"1641880897191","full":1}"#,
        listKey: "data")

    static func symbol(_ m: WireRow) -> String {
        symbols.row.render([
            "sc": (m.base + m.quote).lowercased().quoted, "bcdn": m.base.quoted, "qcdn": m.quote.quoted,
            "bc": m.base.lowercased().quoted, "qc": m.quote.lowercased().quoted, "dn": "\(m.base)/\(m.quote)".quoted,
        ])
    }

    /// `htx/market-tickers-ccxtsrc.json`.
    static let envelope = ListEnvelope(
        constant: #"{"data":[{"symbol":"hbcbtc","open":5.313E-5,"high":5.34E-5,"low":5.112E-5,"close":5.175E-5,"amount":1183.87,"vol":0.0618599229,"count":205,"bid":5.126E-5,"bidSize":5.25,"ask":5.214E-5,"askSize":150.0}],"status":"ok","ts":1639547261293}"#,
        listKey: "data")

    /// Prices are JSON numbers.
    static func row(_ m: WireRow) -> String {
        envelope.row.render([
            "symbol": (m.base + m.quote).lowercased().quoted, "open": m.open, "high": m.high, "low": m.low, "close": m.last,
            "amount": m.volume, "vol": m.quoteVolume, "bid": m.bid, "bidSize": m.bidQty, "ask": m.ask, "askSize": m.askQty,
        ])
    }

    /// The `market.<symbol>.ticker` push of HTX's docs, prices replaced.
    static func frame(_ row: WireRow, _ symbol: String, _ sequence: Int, _ millis: Int64) -> String {
        #"{"ch":"market.\#(symbol).ticker","ts":\#(millis),"tick":{"open":\#(row.open),"high":\#(row.high),"low":\#(row.low),"close":\#(row.last),"amount":\#(row.volume),"vol":\#(row.quoteVolume),"count":448737,"bid":\#(row.bid),"bidSize":\#(row.bidQty),"ask":\#(row.ask),"askSize":\#(row.askQty),"lastPrice":\#(row.last),"lastSize":\#(row.lastQty)}}"#
    }

    /// Every server message: gzip in a binary frame.
    static func encode(_ text: String) -> WireReply { .binary(HTXGzip.compress(text)) }

    /// `{"sub":"market.btcusdt.bbo","id":…}` (or `.ticker`, `.depth.step0`) → `{"id":…,"status":"ok","subbed":…,"ts":…}`; an unknown
    /// symbol → `bad-request` `invalid topic …`; a rejecting server answers with HTX's rate-limit error
    /// (`429 too many request`, which names no market); `{"pong":…}` → nothing.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        let ts = 1_630_982_370_526
        guard let request = WireJSON.object(text) else {
            return [encode(#"{"status":"error","ts":\#(ts),"err-code":"bad-request","err-msg":"invalid json"}"#)]
        }
        if request["pong"] != nil { return [] }
        let id = (request["id"] as? String).map { "\"\($0)\"" } ?? "null"
        guard let topic = request["sub"] as? String, WireJSON.matches(topic, #"^market\.[a-z0-9]+\.(bbo|ticker|depth\.step0)$"#) else {
            return [encode(#"{"status":"error","ts":\#(ts),"id":\#(id),"err-code":"bad-request","err-msg":"invalid topic \#(request["sub"] ?? "")"}"#)]
        }
        let symbol = topic.split(separator: ".")[1]
        let refusal = encode(#"{"status":"error","ts":\#(ts),"id":\#(id),"err-code":"bad-request","err-msg":"invalid topic \#(topic)"}"#)
        if knobs.refused.contains(String(symbol)) { return [refusal] }
        switch knobs.mode {
        case .ack, .partial: return [encode(#"{"id":\#(id),"status":"ok","subbed":"\#(topic)","ts":\#(ts)}"#)]
        case .reject: return [encode(#"{"status":"error","ts":\#(ts),"id":\#(id),"err-code":"bad-request","err-msg":"429 too many request"}"#)]
        case .silent: return []
        }
    }
}
