import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Kraken's quick read (`KrakenTickerSource.quickRows`) must take the recorded answer, read it as the careful
/// path (`Envelope`) does, and leave every other answer to the careful path.
@Suite struct KrakenQuickRowsTests {
    static func described(_ rows: [KrakenTickerSource.Row]) -> [String] {
        rows.sorted { $0.key < $1.key }.map {
            "\($0.key) \($0.last?.price?.exact.description ?? "-") \($0.bid?.price?.exact.description ?? "-") \($0.ask?.price?.exact.description ?? "-")"
        }
    }

    @Test func theRecordedAnswerIsReadQuicklyAndAsTheCarefulPathReadsIt() throws {
        let body = try Fixtures.data("kraken/ticker.json")
        let quick = try #require(KrakenTickerSource.quickRows(body))
        #expect(Self.described(quick) == Self.described(try KrakenTickerSource.carefulRows(body)))
        #expect(Self.described(quick) == ["XETHZUSD 3338.08 3338.94 3338.95", "XXBTZUSD 64547.2 64547.1 64547.2"])
    }

    static let refused: [(why: String, body: String)] = [
        ("an error", #"{"error":["EQuery:Unknown asset pair"],"result":{}}"#),
        ("an error that is not a list", #"{"error":"EGeneral:Internal error","result":{}}"#),
        ("no result", #"{"error":[]}"#),
        ("a ticker that is not an object", #"{"error":[],"result":{"XXBTZUSD":[1]}}"#),
        ("a repeated pair", #"{"error":[],"result":{"XXBTZUSD":{"c":["1","1"]},"XXBTZUSD":{"c":["2","1"]}}}"#),
        ("a pair spelled with escapes", #"{"error":[],"result":{"XXBT\u005AUSD":{"c":["1","1"]}}}"#),
        ("a zero price", #"{"error":[],"result":{"XXBTZUSD":{"c":["0","1"]}}}"#),
        ("a null price", #"{"error":[],"result":{"XXBTZUSD":{"c":[null,"1"]}}}"#),
        ("an empty level", #"{"error":[],"result":{"XXBTZUSD":{"c":[]}}}"#),
        ("a level that is text", #"{"error":[],"result":{"XXBTZUSD":{"c":"64547.2"}}}"#),
        ("a volume that is an object", #"{"error":[],"result":{"XXBTZUSD":{"c":["1",{"v":1}]}}}"#),
        ("truncated", #"{"error":[],"result":{"XXBTZUSD":{"c":["1","1"]}}"#),
        ("trailing bytes", #"{"error":[],"result":{"XXBTZUSD":{"c":["1","1"]}}} ]"#),
    ]

    @Test func everyOtherAnswerIsLeftToTheCarefulPath() {
        for entry in Self.refused {
            #expect(KrakenTickerSource.quickRows(Data(entry.body.utf8)) == nil, "\(entry.why)")
        }
    }

    @Test func anErrorStillNamesKrakensMessageThroughTheCarefulPath() {
        let body = Data(#"{"error":["EQuery:Unknown asset pair"],"result":{}}"#.utf8)
        #expect(throws: SourceError.self) {
            try KrakenTickerSource.decode(body, watched: [MarketPair(base: "BTC", quote: "USD")], receivedAt: Date())
        }
        do {
            _ = try KrakenTickerSource.decode(body, watched: [MarketPair(base: "BTC", quote: "USD")], receivedAt: Date())
        } catch {
            #expect(KrakenTickerSource.isUnknownPair(error))
        }
    }

    @Test func otherMembersAndAMissingSideAreFine() throws {
        let body = Data(#"{"result":{"XXBTZUSD":{"o":"1","t":[1,2],"c":["5.5","1"],"b":["5.4","1","1.000"]}},"error":[]}"#.utf8)
        let rows = try #require(KrakenTickerSource.quickRows(body))
        #expect(Self.described(rows) == ["XXBTZUSD 5.5 5.4 -"])
        #expect(Self.described(rows) == Self.described(try KrakenTickerSource.carefulRows(body)))
    }
}
