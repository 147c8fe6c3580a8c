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
        return SupervisorComponents(makeQuoteSource: { QuoteSources.make($0, fetcher: fetcher) })
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
