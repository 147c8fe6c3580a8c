import Foundation
import MarketAlertKit
import Synchronization

/// Markets an exchange told us it does not list, remembered for a while so that filtered requests leave them out.
///
/// Binance (`symbols=`), Upbit (`markets=`) and Kraken (`pair=`) reject a whole filtered request when one
/// market in it is unknown, and a premium rule may well ask an exchange for a quote currency it lacks
/// (`quotes: [KRW, USDT]` on Binance). A source that gets such a rejection finds out once which watched
/// markets are listed, records the others here, and asks only for the listed ones until the memory expires
/// (`recheckAfter`), so a market listed later is picked up without a restart.
///
/// State is a `Mutex`: sources are `Sendable` structs that may be polled from any task; every access is a
/// short critical section with no suspension inside.
package final class UnlistedMarkets: Sendable {
    private let state = Mutex<[String: Date]>([:])
    package let recheckAfter: TimeInterval

    package init(recheckAfter: Duration = .seconds(3600)) {
        self.recheckAfter = recheckAfter.seconds
    }

    /// Market ids known to be unlisted as of `now`.
    package func unlisted(now: Date) -> Set<String> {
        state.withLock { entries in
            entries = entries.filter { now.timeIntervalSince($0.value) < recheckAfter }
            return Set(entries.keys)
        }
    }

    package func record(_ markets: some Sequence<String>, now: Date) {
        state.withLock { entries in
            for market in markets { entries[market] = now }
        }
    }

    /// The `.empty` error for a poll in which every watched market is known to be unlisted.
    package func allUnlistedError(_ markets: Set<String>, source: String) -> SourceError {
        SourceError(
            source: source, kind: .empty,
            message: "none of the watched markets is listed: \(markets.sorted().joined(separator: ", ")) (checked again within \(Int(recheckAfter / 60)) min)")
    }
}
