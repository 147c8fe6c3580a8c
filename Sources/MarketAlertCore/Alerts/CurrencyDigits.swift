import Foundation

/// How many decimals amounts in a currency get when marketalertd computes them (`price_ref`), and the
/// minimum decimals a published price is shown with in text.
///
/// Minor units follow ISO 4217 for the fiat currencies the daemon meets (KRW, JPY 0; USD, EUR, TWD 2;
/// BHD, KWD 3). Dollar stablecoins (USDT, USDC, …) are priced like the dollar: 2. Crypto assets used as a
/// reference (BTC, ETH) get 8. Anything else: 2.
///
/// A computed price keeps at least 6 significant digits, so a cheap asset never rounds to 0: 95,123.4567 USD
/// → 95123.46, 139,512,345.6 KRW → 139512346, 0.0000123456789 USD → 0.0000123457.
package enum CurrencyDigits {
    package static func minorUnits(_ currency: String) -> Int {
        switch currency.uppercased() {
        case "KRW", "JPY", "VND", "CLP", "ISK", "PYG", "UGX", "XAF", "XOF": 0
        case "BHD", "KWD", "OMR", "JOD", "TND", "IQD", "LYD": 3
        case "BTC", "ETH", "XBT": 8
        default: 2
        }
    }

    /// Significant digits a computed price keeps at least.
    package static let significantDigits = 6

    /// `price_ref`: `value` in `currency`, rounded to the currency's minor unit but to no fewer than
    /// ``significantDigits`` significant digits. 0 for anything not finite and positive.
    package static func priceRef(_ value: Double, currency: String) -> Decimal {
        guard value.isFinite, value > 0 else { return 0 }
        let integerDigits = Int((log10(value)).rounded(.down)) + 1
        let places = max(minorUnits(currency), significantDigits - integerDigits)
        return NumberText.decimal(value, places: min(places, 30))
    }
}
