import Foundation

/// A premium rule set compiled once (when the rules change) into integer slots, so that evaluation walks
/// arrays instead of hashing strings: one state slot per `premium/<rule>/<asset>` key, and per key and
/// exchange the quote book slots of the rule's quote currencies, in the rule's order.
package struct PremiumPlan: Sendable {
    struct CompiledRule: Sendable {
        var rule: PremiumRule
        var policy: LeveledAlertPolicy
        /// The rule's entries (`entries[range]`), one per asset in the rule's order.
        var entries: Range<Int>
        /// Per quote currency of the rule (in order): its index in `currencies`.
        var currencies: [Int]
    }

    struct Entry: Sendable {
        var asset: String
        /// Index of the entry's rule in `rules`.
        var rule: Int
        /// Index of the key in `keys` (and the evaluator's state arrays); a repeated asset shares it.
        var key: Int
        /// Start of this entry's `exchanges × quotes` block in `markets` / `slots` (exchange-major).
        var marketBase: Int
    }

    /// The rules compiled (compared with the settings' rules to know whether the plan still applies).
    private(set) var source: [PremiumRule]
    private(set) var rules: [CompiledRule] = []
    private(set) var entries: [Entry] = []
    /// `premium/<rule>/<asset>` per key index, and the reverse.
    private(set) var keys: [String] = []
    private(set) var index: [String: Int] = [:]
    /// Per asset, its entries in every rule, in plan order: a stream quote re-evaluates these without
    /// comparing its asset with every entry of every rule.
    private(set) var entriesByAsset: [String: [Int]] = [:]
    /// Every quote currency the rules name, once.
    private(set) var currencies: [String] = []
    /// The market behind every (entry, exchange, currency) position, and its slot in the book (-1: never seen).
    private var markets: [(exchange: ExchangeID, pair: MarketPair)] = []
    private(set) var slots: [Int] = []
    /// v3 `min_volume_24h`: positions whose market the rule ignores (their slot stays -1); empty when no rule
    /// ignores a market.
    private var ignored: Set<Int> = []
    /// The book layout `slots` were looked up in.
    private var layout: QuoteBookLayout?

    package init(rules: [PremiumRule]) {
        source = rules
        var currencyIndex: [String: Int] = [:]
        for rule in rules {
            let ruleCurrencies = rule.quotes.map { currency in
                if let known = currencyIndex[currency] { return known }
                currencyIndex[currency] = currencies.count
                currencies.append(currency)
                return currencies.count - 1
            }
            let first = entries.count
            for asset in rule.assets {
                let key = PremiumEvents.key(rule: rule.name, asset: asset)
                let keyIndex: Int
                if let known = index[key] {
                    keyIndex = known
                } else {
                    keyIndex = keys.count
                    index[key] = keyIndex
                    keys.append(key)
                }
                entriesByAsset[asset, default: []].append(entries.count)
                entries.append(Entry(asset: asset, rule: self.rules.count, key: keyIndex, marketBase: markets.count))
                for exchange in rule.exchanges {
                    for currency in rule.quotes {
                        let pair = MarketPair(base: asset, quote: currency)
                        if !rule.ignoredMarkets.isEmpty, rule.ignoredMarkets.contains(ExchangeMarket(exchange, pair)) {
                            ignored.insert(markets.count)
                        }
                        markets.append((exchange, pair))
                    }
                }
            }
            self.rules.append(CompiledRule(
                rule: rule, policy: LeveledAlertPolicy(rule), entries: first..<entries.count, currencies: ruleCurrencies))
        }
        slots = Array(repeating: -1, count: markets.count)
    }

    /// Whether the plan was compiled from exactly these rules (O(1) when they are the same array).
    func compiles(_ rules: [PremiumRule]) -> Bool { source == rules }

    /// Looks the book slots up again when the book's layout changed (a market was seen for the first time).
    mutating func resolve(in book: QuoteBook) {
        guard layout !== book.layout else { return }
        for position in markets.indices {
            slots[position] = ignored.contains(position) ? -1 : book.slot(markets[position].exchange, markets[position].pair) ?? -1
        }
        layout = book.layout
    }
}
