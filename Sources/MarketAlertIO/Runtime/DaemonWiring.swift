import AsyncHTTPClient
import Logging
import MarketAlertCore
import ServiceLifecycle

/// Makes the real parts from settings: quote sources, the FX and IPO components, and the sinks.
package struct DaemonWiring: Sendable {
    package let client: HTTPClient
    package let clock: any DaemonClock
    package let store: StateStore?
    package let secrets: SecretResolver
    package let logger: Logger

    package var fetcher: HTTPFetcher { HTTPFetcher(client: client, clock: clock) }

    package func components() -> SupervisorComponents {
        let fetcher = fetcher
        let wiring = self
        return SupervisorComponents(
            makeQuoteSource: { QuoteSources.make($0, fetcher: fetcher) },
            makeFX: { settings, health, sink, onRatesChanged in
                wiring.makeFX(settings, health: health, sink: sink, onRatesChanged: onRatesChanged)
            })
    }

    private func makeFX(
        _ settings: Settings, health: any SourceHealthReporter, sink: any AlertSink,
        onRatesChanged: @escaping @Sendable () async -> Void
    ) -> FXMonitor? {
        let needed = settings.neededFXCurrencies
        guard !settings.fx.providers.isEmpty, !needed.isEmpty || !settings.fx.alerts.isEmpty else { return nil }
        let made = RateSources.makeAll(settings.fx, fetcher: fetcher, secrets: secrets)
        for issue in made.issues { logger.warning("fx: \(issue)") }
        return FXMonitor(
            settings: settings.fx, sources: made.sources, neededCurrencies: needed, clock: clock, store: store, sink: sink,
            health: health, logger: logger, onRatesChanged: onRatesChanged)
    }

    /// The sinks for `settings` (stdout now; journal and webhooks are added by their parts).
    package func sinks(for settings: Settings) -> [any AlertSink] {
        var sinks: [any AlertSink] = []
        if settings.sinks.stdoutEnabled {
            sinks.append(StdoutSink(format: settings.sinks.stdoutFormat, displayTimeZones: settings.displayTimeZones))
        }
        if settings.sinks.journalEnabled {
            if !Journal.isAvailable {
                logger.warning("sinks.journal is enabled but no journal socket exists; journal entries will be lost", metadata: ["socket": "\(Journal.socketPath)"])
            }
            sinks.append(JournalSink(logger: logger))
        }
        return sinks
    }

    /// Services that run beside the supervisor (the webhook outbox).
    package func backgroundServices() -> [any Service] { [] }
}
