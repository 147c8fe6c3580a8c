import Foundation
import MarketAlertCore
import MarketAlertIO
import Synchronization

/// A quote source whose prices the test sets between polls (the HTTP adapters have their own tests against
/// a real server; the supervisor tests are about state, timing and alerts).
final class ScriptedQuoteSource: QuoteSource {
    let exchange: ExchangeID
    private let state = Mutex<(prices: [String: String], failure: SourceError?, polls: Int)>(([:], nil, 0))
    private let clock: any DaemonClock

    init(_ exchange: ExchangeID, clock: any DaemonClock) {
        self.exchange = exchange
        self.clock = clock
    }

    func set(_ asset: String, _ price: String) { state.withLock { $0.prices[asset] = price } }
    func fail(_ error: SourceError?) { state.withLock { $0.failure = error } }
    var polls: Int { state.withLock { $0.polls } }

    func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        let (prices, failure) = state.withLock { state in
            state.polls += 1
            return (state.prices, state.failure)
        }
        if let failure { throw failure }
        let now = clock.now()
        return pairs.compactMap { pair in
            guard let text = prices[pair.base], let price = Price(text) else { return nil }
            return Quote(exchange: exchange, market: "\(pair.base)\(pair.quote)", base: pair.base, quote: pair.quote, last: price, receivedAt: now)
        }
    }
}

/// Records delivered events.
final class CollectingSink: AlertSink {
    let name = "recording"
    private let events = Mutex<[AlertEvent]>([])

    func deliver(_ event: AlertEvent) async { events.withLock { $0.append(event) } }
    var delivered: [AlertEvent] { events.withLock { $0 } }
    func keys(status: String? = nil) -> [String] { delivered.filter { status == nil || $0.status == status }.map(\.key) }
}

/// Records lifecycle notifications.
final class RecordingLifecycle: LifecycleObserver {
    private let log = Mutex<[String]>([])
    let watchdogInterval: Duration?

    init(watchdogInterval: Duration? = nil) { self.watchdogInterval = watchdogInterval }

    func ready() { log.withLock { $0.append("READY") } }
    func reloading() { log.withLock { $0.append("RELOADING") } }
    func status(_ line: String) { log.withLock { $0.append("STATUS=\(line)") } }
    func watchdog() { log.withLock { $0.append("WATCHDOG") } }
    func stopping() { log.withLock { $0.append("STOPPING") } }
    var entries: [String] { log.withLock { $0 } }
}

func twoExchangeSettings(forDuration: String = "0s", repeatInterval: String = "0s") throws -> Settings {
    try ConfigLoader.parse(yaml: """
        exchanges:
          binance: { poll_interval: 5s }
          bybit: { poll_interval: 5s }
        premium:
          max_quote_age: 30s
          rules:
            - name: global
              assets: [BTC]
              exchanges: [binance, bybit]
              quotes: [USDT]
              levels:
                - { pct: 0.05, severity: notice }
                - { pct: 0.1, severity: warning }
              clear_pct: 0.04
              for: \(forDuration)
              repeat_interval: \(repeatInterval)
        source_alerts: { after_failures: 2, after_silence: 10m }
        """).settings
}
