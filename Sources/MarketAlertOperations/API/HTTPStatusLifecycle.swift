import Foundation
import MarketAlertConfigReader
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// Passes the service manager's notifications through, adding the HTTP address to every `STATUS=` line
/// (`ready: 3 exchanges ok; http 127.0.0.1:41234`), and re-sending the last line when the address changes
/// (port 0 is only known once bound).
package final class HTTPStatusLifecycle: LifecycleObserver {
    private let base: any LifecycleObserver
    private let state = Mutex<(line: String?, listen: String?)>((nil, nil))

    package init(base: any LifecycleObserver) { self.base = base }

    package func status(_ line: String) {
        let listen = state.withLock { state in
            state.line = line
            return state.listen
        }
        base.status(Self.compose(line, listen: listen))
    }

    /// The server now listens on `listen` (nil: it stopped).
    package func listening(_ listen: String?) {
        let line = state.withLock { state -> String? in
            state.listen = listen
            return state.line
        }
        if let line { base.status(Self.compose(line, listen: listen)) }
    }

    package static func compose(_ line: String, listen: String?) -> String {
        listen.map { "\(line); http \($0)" } ?? line
    }

    package func ready() { base.ready() }
    package func reloading() { base.reloading() }
    package func watchdog() { base.watchdog() }
    package func stopping() { base.stopping() }
    package var watchdogInterval: Duration? { base.watchdogInterval }
}
