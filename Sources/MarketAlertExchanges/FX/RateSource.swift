import Foundation
import MarketAlertCore
import MarketAlertKit

/// One FX provider. Returns `USD/<currency>` rates (units of currency per USD) for the currencies asked.
package protocol RateSource: Sendable {
    var provider: FXProviderKind { get }
    func fetchUSDRates(for currencies: Set<String>) async throws(SourceError) -> [FXRate]
}
