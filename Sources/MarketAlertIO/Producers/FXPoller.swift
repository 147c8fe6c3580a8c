import Foundation
import Logging
import MarketAlertCore

/// Polls the FX providers every `fx.poll_interval` and pushes each round's outcome into the engine's inbox:
/// every call as a source success or failure (source name = provider name), then the providers' book and the
/// failover that selects among them (`EngineEvent.fxRound`). Selection, freshness and FX move alerts are the
/// engine's; this only decides whom to call (`FXFailover.nextCall`: the first provider with a fresh rate
/// settles a currency; OpenExchangeRates is not called while its last rate is current) and backs a failing
/// provider off (`Backoff`, at least its Retry-After).
package actor FXPoller {
    private let sources: [FXProviderKind: any RateSource]
    private let failover: FXFailover
    private let pollInterval: Duration
    private let clock: any DaemonClock
    private let logger: Logger
    private let backoff: Backoff
    private let random: @Sendable () -> Double
    private var book = FXRateBook()

    /// - Parameters:
    ///   - sources: the usable providers in failover order (`RateSources.makeAll`).
    ///   - currencies: currencies needed as `USD/<currency>` (premiums and FX alerts); USD is never fetched.
    package init(
        settings: FXSettings, sources: [any RateSource], currencies: Set<String>, clock: any DaemonClock, logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        var byKind: [FXProviderKind: any RateSource] = [:]
        var chain: [FXProviderProfile] = []
        for source in sources where byKind[source.provider] == nil {
            byKind[source.provider] = source
            chain.append(.standard(source.provider))
        }
        self.sources = byKind
        self.failover = FXFailover(chain: chain, currencies: currencies, maxAge: settings.maxAge)
        self.pollInterval = settings.pollInterval
        self.clock = clock
        self.logger = logger
        self.backoff = Backoff(base: settings.pollInterval, maximum: max(settings.pollInterval, .seconds(30 * 60)))
        self.random = random
    }

    /// Polls at once, then every `fx.poll_interval`, until cancelled.
    package func run(into inbox: EngineInbox) async {
        var next = clock.now()
        while !Task.isCancelled {
            await pollOnce(into: inbox)
            next = next.addingTimeInterval(pollInterval.seconds)
            let now = clock.now()
            if next <= now { next = now.addingTimeInterval(pollInterval.seconds) }  // a slow round skips ticks
            do { try await clock.sleep(until: next, label: ProducerKey.fx.pollLabel) } catch { return }
        }
    }

    /// One round: the calls the failover asks for, then the book.
    package func pollOnce(into inbox: EngineInbox) async {
        var attempted: Set<FXProviderKind> = []
        while let call = failover.nextCall(book, attempted: attempted, now: clock.now()) {
            attempted.insert(call.kind)
            guard let source = sources[call.kind] else { continue }
            let started = clock.now()
            do {
                let rates = try await FetchMetrics.timed(call.kind.rawValue) { () async throws(SourceError) in try await source.fetchUSDRates(for: call.currencies) }
                if Task.isCancelled { return }
                book.recordSuccess(call.kind, rates: rates, at: started)
                inbox.send(.sourceSucceeded(source: call.kind.rawValue))
            } catch {
                if Task.isCancelled { return }
                let failures = book.state(call.kind).consecutiveFailures + 1
                let delay = backoff.delay(afterFailures: failures, random: random(), minimum: error.retryAfter)
                book.recordFailure(call.kind, at: clock.now(), delay: delay)
                logger.debug(
                    "FX provider failed: \(error)",
                    metadata: ["provider": "\(call.kind.rawValue)", "failures": "\(failures)", "retry_in_s": "\(Int(delay.seconds))"])
                inbox.send(.sourceFailed(source: call.kind.rawValue, message: error.message))
            }
        }
        inbox.send(.fxRound(book, failover))
    }
}
