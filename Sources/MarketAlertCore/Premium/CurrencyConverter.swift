import Foundation

/// Converts prices into the reference currency. Stablecoins count 1:1 as their fiat (`stablecoins_as`);
/// other fiat goes through USD with `USD/<fiat>` rates. A currency without a fresh rate cannot be
/// converted: the caller drops that quote, it never guesses.
package struct CurrencyConverter: Sendable {
    package let reference: String
    package let stablecoinsAs: [String: String]
    /// Fresh `USD/<fiat>` rates by fiat code, e.g. `["KRW": USD/KRW 1380]`.
    package let usdRates: [String: FXRate]

    /// Factor and rates per currency, computed once: evaluation asks for them for every quote, and must not
    /// build an array of rates each time.
    private var table: [String: (factor: Double, rates: [FXRate])] = [:]
    /// Which converter this is (a new one per `init`): lets a caller keep what it derived from this one.
    package let identity = ConverterIdentity()

    package init(reference: String, stablecoinsAs: [String: String], usdRates: [String: FXRate]) {
        self.reference = reference
        self.stablecoinsAs = stablecoinsAs
        self.usdRates = usdRates
        for currency in Set([reference, "USD"]).union(usdRates.keys).union(stablecoinsAs.keys) {
            if let conversion = compute(1, currency: currency) { table[currency] = (conversion.value, conversion.rates) }
        }
    }

    /// `value` in `currency` expressed in the reference currency, with the rates it needed; nil without a rate.
    package func toReference(_ value: Double, currency: String) -> (value: Double, rates: [FXRate])? {
        if let entry = table[currency] { return (value * entry.factor, entry.rates) }
        return compute(value, currency: currency)
    }

    private func compute(_ value: Double, currency: String) -> (value: Double, rates: [FXRate])? {
        let fiat = stablecoinsAs[currency] ?? currency
        if fiat == reference { return (value, []) }
        var rates: [FXRate] = []
        var usd = value
        if fiat != "USD" {
            guard let rate = usdRates[fiat] else { return nil }
            usd = value / rate.rate.value
            rates.append(rate)
        }
        if reference == "USD" { return (usd, rates) }
        guard let rate = usdRates[reference] else { return nil }
        rates.append(rate)
        return (usd * rate.rate.value, rates)
    }
}

/// The identity of one `CurrencyConverter` value and its copies (compared by reference).
package final class ConverterIdentity: Sendable {
    init() {}
}
