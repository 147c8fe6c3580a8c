import Foundation
import MarketAlertCore
import MarketAlertExchanges

/// libFuzzer target for the REST decoders: each registry exchange's ticker decoding, `JSONListPruner`, the FX
/// providers' parsers and TWSE's publicForm. The first byte of an input picks the decoder, the rest is the
/// body. Decoders may reject anything, but must never crash, and whatever they accept must hold up:
/// prices in `Price.plausibleRange`, only watched markets, and a pruned document that is valid JSON.
///
/// Run by `scripts/fuzz` (see `FuzzEntry.swift`).
enum FuzzREST {
    static let receivedAt = Date(timeIntervalSince1970: 1_773_110_820)

    static func pairs(_ quote: String) -> Set<MarketPair> {
        [MarketPair(base: "BTC", quote: quote), MarketPair(base: "ETH", quote: quote), MarketPair(base: "XRP", quote: quote)]
    }

    /// One decoder: its name, the fixture folders (under `Tests/Fixtures`) that seed it, and the run.
    struct Decoder: Sendable {
        var name: String
        var seeds: [String]
        var run: @Sendable (Data) -> Void
    }

    /// The decoders, in selector order: every registry exchange's ticker decoding in the registry's order,
    /// each watching its recorded quote currency, then the other parsers (`FuzzSeeds` seeds each).
    static let decoders: [Decoder] = {
        let exchanges = ExchangeRegistry.standard.listed
        let restFolders = exchanges.map(\.wire.fixtures.rest)
        return exchanges.map { descriptor in
            let watched = pairs(descriptor.wire.recordedQuote)
            return Decoder(name: descriptor.id.rawValue, seeds: [descriptor.wire.fixtures.rest]) { body in
                quotes { try descriptor.decodeTickers(body, watched, receivedAt) }
            }
        } + [
            Decoder(name: "pruner", seeds: restFolders) { prune($0, listPath: []) },
            Decoder(name: "pruner-nested", seeds: restFolders) { prune($0, listPath: ["result", "list"]) },
            Decoder(name: "dunamu", seeds: ["dunamu"]) { body in rates { [try DunamuRateSource.parse(body)] } },
            Decoder(name: "openexchangerates", seeds: ["openexchangerates"]) { body in
                rates { try OpenExchangeRatesSource.parse(body, currencies: ["KRW", "TWD", "JPY"]) }
            },
            Decoder(name: "frankfurter", seeds: ["frankfurter"]) { body in
                rates { try FrankfurterRateSource.parse(body, currencies: ["KRW", "TWD", "JPY"]) }
            },
            Decoder(name: "twse", seeds: ["twse"]) { body in _ = try? TWSEPublicFormResponse.decode(body, source: "twse") },
        ]
    }()

    static func run(_ input: Data) {
        guard let selector = input.first else { return }
        decoders[Int(selector) % decoders.count].run(input.dropFirst())
    }

    /// Accepted quotes must be watched markets with plausible prices.
    static func quotes(_ decode: () throws -> [Quote]) {
        guard let quotes = try? decode() else { return }
        for quote in quotes {
            for price in [quote.last, quote.bid, quote.ask].compactMap({ $0 }) { check(price) }
            precondition(["BTC", "ETH", "XRP"].contains(quote.base), "an unwatched market was accepted: \(quote.market)")
        }
    }

    static func rates(_ parse: () throws -> [FXRate]) {
        guard let rates = try? parse() else { return }
        for rate in rates { check(rate.rate) }
    }

    static func check(_ price: Price) {
        precondition(price.value > Price.plausibleRange.lower && price.value < Price.plausibleRange.upper, "implausible price \(price)")
        precondition(price.exact > 0)
    }

    /// A document the pruner accepts stays valid JSON after pruning, with no more elements than it had.
    static func prune(_ body: Data, listPath: [String]) {
        guard let outcome = try? JSONListPruner.prune(body, listPath: listPath, keyField: "symbol", keep: { $0.hasPrefix("BTC") })
        else { return }
        precondition(outcome.keptCount <= (outcome.elementCount ?? 0) || outcome.elementCount == nil)
        guard outcome.elementCount != nil, (try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)) != nil else { return }
        precondition(
            (try? JSONSerialization.jsonObject(with: outcome.document, options: .fragmentsAllowed)) != nil,
            "pruning made valid JSON invalid")
    }
}
