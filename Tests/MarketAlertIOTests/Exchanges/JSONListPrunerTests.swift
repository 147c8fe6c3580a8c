import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

@Suite struct JSONListPrunerTests {
    private func prune(_ text: String, path: [String] = [], keep: Set<String> = ["BTCUSDT"]) throws -> JSONListPruner.Outcome {
        try JSONListPruner.prune(Data(text.utf8), listPath: path, keyField: "symbol") { keep.contains($0) }
    }

    private func text(_ outcome: JSONListPruner.Outcome) -> String { String(decoding: outcome.document, as: UTF8.self) }

    @Test func keepsOnlyWatchedElementsOfATopLevelList() throws {
        let outcome = try prune(#" [ {"symbol":"ETHBTC","p":"1"} , {"symbol" : "BTCUSDT","p":[1,{"x":null}]},{"p":true,"symbol":"XRPUSDT"} ] "#)
        #expect(text(outcome) == #" [{"symbol" : "BTCUSDT","p":[1,{"x":null}]}] "#)
        #expect(outcome.elementCount == 3)
        #expect(outcome.keptCount == 1)
    }

    @Test func prunesAListInsideAnEnvelopeAndKeepsTheRest() throws {
        let body = #"{"retCode":0,"result":{"category":"spot","list":[{"symbol":"A"},{"symbol":"BTCUSDT"}]},"time":1,"list":[{"symbol":"A"}]}"#
        let outcome = try prune(body, path: ["result", "list"])
        #expect(text(outcome) == #"{"retCode":0,"result":{"category":"spot","list":[{"symbol":"BTCUSDT"}]},"time":1,"list":[{"symbol":"A"}]}"#)
        #expect(outcome.elementCount == 2)
    }

    @Test func leavesTheDocumentAloneWhenThePathLeadsNowhere() throws {
        for body in [#"{"code":-1121,"msg":"Invalid symbol."}"#, #"{"result":null}"#, #"{"result":{"list":{"a":1}}}"#, #"[1]"#] {
            let outcome = try prune(body, path: ["result", "list"])
            #expect(text(outcome) == body)
            #expect(outcome.elementCount == nil)
        }
    }

    @Test func keepsWhatItCannotJudgeForTheDecoder() throws {
        // Not an object, no key field, key field not a string, key spelled with escapes.
        let body = #"[1,{"other":"BTCUSDT"},{"symbol":7},{"symbol":"BTC\u0055SDT"},{"symbol":"ETHBTC"}]"#
        let outcome = try prune(body)
        #expect(text(outcome) == #"[1,{"other":"BTCUSDT"},{"symbol":7},{"symbol":"BTC\u0055SDT"}]"#)
    }

    @Test func emptyList() throws {
        let outcome = try prune(" [ ] ")
        #expect(outcome.elementCount == 0)
        #expect(text(outcome) == " [] ")
    }

    @Test(arguments: [
        "", "   ", "<html><body>502</body></html>", "[", #"[{"symbol":"BTCUSDT""#, #"[{"symbol":"BTCUSDT"}"#,
        #"[{"symbol":"BTCUSDT"}]x"#, #"[{"symbol":"BTCUSDT",}]"#, "[1,]", "[01]", "[1.]", "[-]", "[1e]", "[tru]", "[nul]",
        #"["a\x"]"#, "[\"a\u{01}\"]", #"{"a" 1}"#, #"{"a":1"#, "[}", "{]", #"{1:2}"#, "[NaN]", "['a']",
    ])
    func rejectsWhatIsNotJSON(_ body: String) {
        #expect(throws: JSONListPruner.SyntaxError.self) { try prune(body) }
    }

    @Test func refusesAbsurdNestingWithoutCrashing() {
        let deep = "[" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "]"
        #expect(throws: JSONListPruner.SyntaxError.self) { try prune(deep) }
    }

    /// Every proper prefix of a body is truncated JSON and must be refused; the whole body is accepted.
    @Test func everyTruncationIsRefused() throws {
        let body = try Fixtures.string("bybit/tickers-spot.json")
        let bytes = Array(body.utf8)
        for length in 0..<bytes.count {
            #expect(throws: JSONListPruner.SyntaxError.self, "prefix of \(length) bytes") {
                try JSONListPruner.prune(Data(bytes[0..<length]), listPath: ["result", "list"], keyField: "symbol") { _ in true }
            }
        }
        #expect(try JSONListPruner.prune(Data(bytes), listPath: ["result", "list"], keyField: "symbol") { _ in true }.keptCount == 1)
    }

    /// Random single-byte corruptions: the pruner accepts exactly what Foundation's JSON parser accepts
    /// (bytes drawn from ASCII, so UTF-8 validity, which the pruner leaves to the decoder, is not at stake).
    @Test func agreesWithFoundationOnCorruptedBodies() throws {
        let original = Array(try Fixtures.string("okx/market-tickers-SPOT-ccxtsrc.json").utf8)
        let alphabet = Array(#"{}[]:,"\ 0123456789.-+eEtrufalsn"#.utf8)
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<2000 {
            var bytes = original
            let position = Int(generator.next() % UInt64(bytes.count))
            bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
            let data = Data(bytes)
            let foundationAccepts = (try? JSONSerialization.jsonObject(with: data)) != nil
            let prunerAccepts = (try? JSONListPruner.prune(data, listPath: ["data"], keyField: "instId") { _ in true }) != nil
            #expect(prunerAccepts == foundationAccepts, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// Pruning changes nothing but speed: decoding a few watched markets out of the whole 2,519-symbol list
    /// gives the same quotes as decoding every symbol and picking them out afterwards.
    @Test func pruningGivesTheSameQuotesAsAFullDecode() throws {
        let body = try Fixtures.data("binance/ticker-24hr-all-20240310.json")
        let receivedAt = Date(timeIntervalSince1970: 1_710_038_830)
        let everything = try JSONDecoder().decode([[String: JSONScalar]].self, from: body)
        let allPairs = Set(everything.compactMap { $0["symbol"]?.text }.map { MarketPair(base: $0, quote: "") })
        let all = try BinanceTickerSource.decode(body, watched: allPairs, receivedAt: receivedAt)
        let watched: Set<MarketPair> = [
            MarketPair(base: "BTC", quote: "USDT"), MarketPair(base: "ETH", quote: "USDT"), MarketPair(base: "XRP", quote: "USDT"),
            MarketPair(base: "BCC", quote: "BTC"),  // delisted: zero prices, dropped
        ]
        let some = try BinanceTickerSource.decode(body, watched: watched, receivedAt: receivedAt)
        #expect(some.map(\.market) == ["BTCUSDT", "ETHUSDT", "XRPUSDT"])
        let fromAll = all.filter { ["BTCUSDT", "ETHUSDT", "XRPUSDT"].contains($0.market) }
        #expect(some.map(\.last) == fromAll.map(\.last))
        #expect(some.map(\.bid) == fromAll.map(\.bid))
        #expect(some.map(\.ask) == fromAll.map(\.ask))
        #expect(some.map(\.exchangeTime) == fromAll.map(\.exchangeTime))
        #expect(some.first?.last?.exact == Decimal(string: "69010.01"))
    }
}

/// A JSON string, number, bool or null, for reading arbitrary flat objects in tests.
private struct JSONScalar: Decodable {
    var text: String?
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        text = try? container.decode(String.self)
    }
}

/// A small deterministic generator, so the corruption test is the same on every run.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
