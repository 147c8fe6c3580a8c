import Foundation
import MarketAlertKit

/// The min and max pct of one bucket of a sparkline (bucket `index` of `count` over the period).
package struct HistoryBucket: Sendable, Equatable {
    package var index: Int
    package var minPct: Double
    package var maxPct: Double

    package init(index: Int, minPct: Double, maxPct: Double) {
        self.index = index
        self.minPct = minPct
        self.maxPct = maxPct
    }
}
