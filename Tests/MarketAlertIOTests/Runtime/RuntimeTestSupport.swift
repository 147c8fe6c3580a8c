import Foundation
import MarketAlertCore
import MarketAlertIO
import Synchronization

/// A quote source whose prices the test sets between polls (the HTTP adapters have their own tests against
/// a real server; the runtime tests are about state, timing and alerts). `delay` makes it answer late, in
/// virtual time: the poll waits on the clock under the producer's own name (`ClockLabel.poll`), so a poll
/// whose answer is on its way counts as its producer at rest, waiting for virtual time like between polls.
final class ScriptedQuoteSource: QuoteSource {
    let exchange: ExchangeID
    private let state = Mutex<(prices: [String: String], failure: SourceError?, polls: Int, delay: Duration)>(([:], nil, 0, .zero))
    private let clock: any DaemonClock

    init(_ exchange: ExchangeID, clock: any DaemonClock) {
        self.exchange = exchange
        self.clock = clock
    }

    func set(_ asset: String, _ price: String) { state.withLock { $0.prices[asset] = price } }
    func fail(_ error: SourceError?) { state.withLock { $0.failure = error } }
    func answerAfter(_ delay: Duration) { state.withLock { $0.delay = delay } }
    var polls: Int { state.withLock { $0.polls } }

    func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        let delay = state.withLock { $0.delay }
        if delay > .zero {
            do { try await clock.sleep(for: delay, label: .poll(exchange.rawValue)) } catch { throw SourceError(source: exchange.rawValue, kind: .timeout, message: "cancelled") }
        }
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

/// A factory serving scripted sources by exchange.
func scriptedFactory(_ sources: [ScriptedQuoteSource]) -> ProducerFactory {
    ProducerFactory(quoteSource: { settings in sources.first { $0.exchange == settings.id } })
}
