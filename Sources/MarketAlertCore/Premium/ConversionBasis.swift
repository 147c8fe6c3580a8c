import Foundation

/// The seam through which every price reaches the reference currency: what one unit of a quote currency is
/// worth in the reference, and which rates said so. The premium machines ask it once per currency and
/// selection (`identity` tells them when to ask again), never per quote.
///
/// Today's basis is the official one (`CurrencyConverter`: stablecoins 1:1 as their fiat, fiat through the
/// selected `USD/<fiat>` rates). A second KRW basis — the KRW price of USDT on the Korean exchanges, which
/// traders quote beside the official rate — is one more type conforming to this protocol, built from quotes
/// instead of FX providers; the evaluator and the premium math do not change.
package protocol ConversionBasis: Sendable {
    /// The basis as events and metrics name it (`official`, `usdt`).
    var basisName: String { get }
    /// The reference currency prices are converted into.
    var reference: String { get }
    /// Which conversion this is; a new value whenever its rates change.
    var identity: ConverterIdentity { get }
    /// `value` in `currency` expressed in the reference currency, with the rates it needed; nil when the basis
    /// has no fresh rate for `currency` (the quote is then left out, never guessed).
    func toReference(_ value: Double, currency: String) -> (value: Double, rates: [FXRate])?
}

extension CurrencyConverter: ConversionBasis {
    package var basisName: String { "official" }
}
