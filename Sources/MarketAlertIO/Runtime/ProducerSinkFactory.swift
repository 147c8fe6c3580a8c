import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import ServiceLifecycle

/// Makes the real parts from settings: the producers (through the exchange registry, the FX providers and
/// TWSE) and the sinks.
package struct ProducerSinkFactory: Sendable {
    package let client: HTTPClient
    package let clock: any DaemonClock
    package let secrets: SecretResolver
    package let logger: Logger
    package let registry: ExchangeRegistry
    /// The durable webhook queue (one for the life of the process; reloads change its targets).
    package let outbox: WebhookOutbox?
    /// Sends the outbox's webhook POSTs (nil without an outbox).
    private let webhookSender: WebhookSender?
    /// What the queued sinks' writers report (the publisher follows it, `DataPathService.run`).
    package let writeReports = SinkWriteReports()
    /// The process's one stdout writer: every stdout sink a reload makes writes through it, in order.
    package let stdoutWriter: BackgroundWriter<StdoutSink.Line>
    /// The process's one journal entry writer.
    package let journalWriter: BackgroundWriter<[(String, String)]>
    /// Under systemd with `StandardOutput=journal`, the stdout sink would duplicate the journal sink.
    package let stdoutIsJournal = LoggingSetup.stdoutIsJournal(environment: ProcessInfo.processInfo.environment)

    /// - Parameter webhookClient: the client webhook delivery uses (`WebhookHTTPClient`: never follows
    ///   redirects); without it (or without a queue) there is no outbox.
    package init(
        client: HTTPClient, webhookClient: HTTPClient? = nil, clock: any DaemonClock, queue: (any WebhookQueueStore)?,
        secrets: SecretResolver, logger: Logger, initial: Settings, registry: ExchangeRegistry = .standard
    ) {
        self.client = client
        self.clock = clock
        self.secrets = secrets
        self.logger = logger
        self.registry = registry
        self.stdoutWriter = StdoutSink.makeWriter(reports: writeReports)
        self.journalWriter = JournalSink.makeWriter(logger: logger)
        if let queue, let webhookClient {
            let sender = WebhookSender(client: webhookClient)
            let resolved = DurableSinkTargets.make(initial, secrets: secrets, sender: sender, clock: clock, logger: logger)
            for warning in resolved.warnings { logger.warning("webhooks: \(warning)") }
            outbox = WebhookOutbox(store: queue, deliveryTargets: resolved.targets, sender: sender, clock: clock, logger: logger)
            webhookSender = sender
        } else {
            outbox = nil
            webhookSender = nil
        }
    }

    package var fetcher: HTTPFetcher { AsyncHTTPFetcher(client: client, clock: clock) }

    package func producers() -> ProducerFactory {
        let fetcher = fetcher
        let wiring = self
        let rejectedPrices = RejectedPriceReporter(clock: clock, logger: logger)
        var factory = ProducerFactory(
            quoteSource: { settings in wiring.registry.makeQuoteSource(settings, fetcher: fetcher).map(rejectedPrices.reporting) },
            streamSource: { settings in
                wiring.registry.makeStreamSource(settings, context: StreamContext(clock: wiring.clock, logger: wiring.logger, fetcher: fetcher))
            },
            fxPoller: { wiring.makeFX($0) },
            ipoPoller: { source, ipo in
                IPOPoller(settings: source, excludeNamePatterns: ipo.excludeNamePatterns, fetcher: fetcher, clock: wiring.clock, logger: wiring.logger)
            })
        factory.listingPoller = { exchange, listings in
            MarketListSources.make(exchange, fetcher: fetcher).map {
                ListingPoller(source: $0, settings: listings, clock: wiring.clock, logger: wiring.logger)
            }
        }
        factory.transferPoller = { settings in
            TransferPoller.make(settings, fetcher: fetcher, secrets: wiring.secrets, clock: wiring.clock, logger: wiring.logger)
        }
        factory.universeSource = { MarketUniverseSources.make($0, fetcher: fetcher) }
        factory.marketList = { MarketListSources.make($0, fetcher: fetcher) }
        factory.ipoPricePoller = { value, source in
            IPOMarketPricePoller.make(source, settings: value, fetcher: fetcher, clock: wiring.clock, logger: wiring.logger)
        }
        return factory
    }

    private func makeFX(_ settings: Settings) -> FXPoller? {
        let made = RateSources.makeAll(settings.fx, fetcher: fetcher, secrets: secrets)
        for issue in made.issues { logger.warning("fx: \(issue)") }
        guard !made.sources.isEmpty else { return nil }
        let currencies = settings.neededFXCurrencies.union(settings.fx.alerts.filter(FXMoveAlerts.isSupported).map(\.quote))
        return FXPoller(settings: settings.fx, sources: made.sources, currencies: currencies, clock: clock, logger: logger)
    }

    /// The sinks for `settings`: stdout, the journal, and the webhook outbox (its targets updated to match).
    package func sinks(for settings: Settings) -> [any AlertSink] {
        var sinks: [any AlertSink] = []
        if settings.sinks.stdoutEnabled {
            if settings.sinks.journalEnabled && stdoutIsJournal {
                logger.info("stdout goes to the journal and the journal sink is on: alerts are written once, as native entries")
            } else {
                sinks.append(StdoutSink(format: settings.sinks.stdoutFormat, displayTimeZones: settings.displayTimeZones, writer: stdoutWriter))
            }
        }
        if settings.sinks.journalEnabled {
            if !Journal.isAvailable {
                logger.warning("sinks.journal is enabled but no journal socket exists; journal entries will be lost", metadata: ["socket": "\(Journal.socketPath)"])
            }
            sinks.append(JournalSink(logger: logger, writer: journalWriter))
        }
        if let outbox { sinks.append(outbox) }
        return sinks
    }

    /// Re-resolves webhook targets after a reload (secrets may have changed too).
    package func reloadWebhooks(_ settings: Settings) async {
        guard let outbox, let webhookSender else { return }
        let resolved = DurableSinkTargets.make(settings, secrets: secrets, sender: webhookSender, clock: clock, logger: logger)
        for warning in resolved.warnings { logger.warning("webhooks: \(warning)") }
        await outbox.update(deliveryTargets: resolved.targets)
    }
}
