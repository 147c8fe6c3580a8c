import Foundation

/// The daemon's version, shown by `--version` and sent as the User-Agent.
package enum MarketAlertVersion {
    package static let current = "0.1.0"
}
