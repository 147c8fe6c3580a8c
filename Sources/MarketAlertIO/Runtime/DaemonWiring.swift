import Foundation
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
    /// The durable webhook queue (one for the life of the process; reloads change its targets).
    package let outbox: WebhookOutbox?
    /// Under systemd with `StandardOutput=journal`, the stdout sink would duplicate the journal sink.
    package let stdoutIsJournal = LoggingSetup.stdoutIsJournal(environment: ProcessInfo.processInfo.environment)

    package init(client: HTTPClient, clock: any DaemonClock, store: StateStore?, secrets: SecretResolver, logger: Logger, initial: Settings) {
        self.client = client
        self.clock = clock
        self.store = store
        self.secrets = secrets
        self.logger = logger
        if let store {
            let resolved = WebhookTarget.resolve(initial.sinks.webhooks, secrets: secrets)
            for warning in resolved.warnings { logger.warning("webhooks: \(warning)") }
            outbox = WebhookOutbox(store: store, targets: resolved.targets, client: client, clock: clock, logger: logger)
        } else {
            outbox = nil
        }
    }

    package var fetcher: HTTPFetcher { HTTPFetcher(client: client, clock: clock) }

    package func components() -> SupervisorComponents {
        let fetcher = fetcher
        let wiring = self
        return SupervisorComponents(
            makeQuoteSource: { QuoteSources.make($0, fetcher: fetcher) },
            makeFX: { settings, health, sink, onRatesChanged in
                wiring.makeFX(settings, health: health, sink: sink, onRatesChanged: onRatesChanged)
            },
            makeIPO: { settings, health, sink in
                guard !settings.ipo.sources.isEmpty else { return nil }
                return IPOWatcher(
                    settings: settings.ipo, fetcher: fetcher, clock: wiring.clock, store: wiring.store, sink: sink,
                    health: health, logger: wiring.logger)
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

    /// The sinks for `settings`: stdout, the journal, and the webhook outbox (its targets updated to match).
    package func sinks(for settings: Settings) async -> [any AlertSink] {
        var sinks: [any AlertSink] = []
        if settings.sinks.stdoutEnabled {
            if settings.sinks.journalEnabled && stdoutIsJournal {
                logger.info("stdout goes to the journal and the journal sink is on: alerts are written once, as native entries")
            } else {
                sinks.append(StdoutSink(format: settings.sinks.stdoutFormat, displayTimeZones: settings.displayTimeZones))
            }
        }
        if settings.sinks.journalEnabled {
            if !Journal.isAvailable {
                logger.warning("sinks.journal is enabled but no journal socket exists; journal entries will be lost", metadata: ["socket": "\(Journal.socketPath)"])
            }
            sinks.append(JournalSink(logger: logger))
        }
        if let outbox {
            sinks.append(outbox)
        }
        return sinks
    }

    /// Re-resolves webhook targets after a reload (secrets may have changed too).
    package func reloadWebhooks(_ settings: Settings) async {
        guard let outbox else { return }
        let resolved = WebhookTarget.resolve(settings.sinks.webhooks, secrets: secrets)
        for warning in resolved.warnings { logger.warning("webhooks: \(warning)") }
        await outbox.update(targets: resolved.targets)
    }

    /// Services that run beside the supervisor (the webhook outbox), started before it and stopped after it.
    package func backgroundServices() -> [any Service] { outbox.map { [$0] } ?? [] }
}

extension IPOWatcher: IPOComponent {
    package func openWindowCount() async -> Int { snapshot().filter(\.isOpen).count }
}
