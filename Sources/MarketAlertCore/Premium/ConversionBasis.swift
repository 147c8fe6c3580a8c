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

/// v3 `krw_via: usdt`: KRW through the KRW price of USDT on the Korean exchanges (`fx.usdt_krw`), then USDT =
/// USD; every other currency as the official basis converts it. A KRW price's rates name the USDT/KRW rate
/// and the exchange it came from.
package struct USDTConversionBasis: ConversionBasis {
    private let converter: CurrencyConverter
    /// The USDT/KRW rate in use (nil: KRW cannot be converted on this basis).
    package let usdtKrw: FXRate?

    package init(official: CurrencyConverter, usdtKrw: FXRate?) {
        var rates = official.usdRates
        rates["KRW"] = usdtKrw
        converter = CurrencyConverter(reference: official.reference, stablecoinsAs: official.stablecoinsAs, usdRates: rates)
        self.usdtKrw = usdtKrw
    }

    package var basisName: String { KRWVia.usdt.rawValue }
    package var reference: String { converter.reference }
    package var identity: ConverterIdentity { converter.identity }

    package func toReference(_ value: Double, currency: String) -> (value: Double, rates: [FXRate])? {
        converter.toReference(value, currency: currency)
    }
}
