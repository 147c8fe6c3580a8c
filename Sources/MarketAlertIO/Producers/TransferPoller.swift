import Crypto
import Foundation
import Logging
import MarketAlertCore

/// Polls deposit and withdrawal status every `transfers.poll_interval`: per exchange the rules watch, one
/// GET of its status endpoint (public, or signed with the read-only key `transfers.keys` names), pushed into
/// the engine's inbox as a `TransferReport`. Each exchange is its own source (`<exchange>/transfers`) in
/// health and `source/…` alerts; a failed exchange keeps its last statuses (nothing is sent) and is asked
/// again at the next round. An exchange without an adapter, or a private one without a key, is not asked:
/// its status stays unknown.
package actor TransferPoller {
    private let sources: [(source: TransferStatusSource, assets: Set<String>)]
    private let pollInterval: Duration
    private let clock: any DaemonClock
    private let logger: Logger

    package init(sources: [(source: TransferStatusSource, assets: Set<String>)], pollInterval: Duration, clock: any DaemonClock, logger: Logger) {
        self.sources = sources
        self.pollInterval = pollInterval
        self.clock = clock
        self.logger = logger
    }

    /// The sources `settings` calls for: watched exchanges with an adapter, and for private ones a key whose
    /// secrets resolve (the others are logged once, by name of the secret only).
    package static func make(
        _ settings: Settings, fetcher: HTTPFetcher, secrets: SecretResolver, clock: any DaemonClock, logger: Logger
    ) -> TransferPoller? {
        guard let transfers = settings.transfers else { return nil }
        var made: [(source: TransferStatusSource, assets: Set<String>)] = []
        for (exchange, assets) in settings.watchedTransferAssets.sorted(by: { $0.key < $1.key }) {
            guard let adapter = TransferStatusRegistry[exchange], let exchangeSettings = settings.exchanges[exchange] else {
                logger.info("transfers: \(exchange) publishes no status this build can read; its status stays unknown")
                continue
            }
            var credentials: TransferCredentials?
            if adapter.access == .apiKey {
                guard let key = transfers.keys[exchange] else {
                    logger.info("transfers: \(exchange) publishes its status only to an API key (transfers.keys.\(exchange)); it stays unknown")
                    continue
                }
                guard let access = secrets.resolve(key.accessKeyEnv), let secret = secrets.resolve(key.secretKeyEnv) else {
                    logger.warning("transfers: the secrets \(key.accessKeyEnv) and \(key.secretKeyEnv) are not both set; \(exchange) stays unknown")
                    continue
                }
                var passphrase: String?
                if let name = key.passphraseEnv {
                    guard let value = secrets.resolve(name) else {
                        logger.warning("transfers: the secret \(name) (the key's passphrase) is not set; \(exchange) stays unknown")
                        continue
                    }
                    passphrase = value
                }
                credentials = TransferCredentials(accessKey: access, secretKey: secret, passphrase: passphrase)
            }
            let source = TransferStatusSource(
                adapter: adapter, settings: exchangeSettings, fetcher: fetcher, credentials: credentials, signer: .hmacSHA256)
            made.append((source, assets))
        }
        return TransferPoller(sources: made, pollInterval: transfers.pollInterval, clock: clock, logger: logger)
    }

    /// The source names this poller reports under (`binance/transfers`, …).
    package var sourceNames: [String] { sources.map(\.source.name) }

    /// Polls at once, then every `poll_interval`, until cancelled.
    package func run(into inbox: EngineInbox) async {
        var next = clock.now()
        while !Task.isCancelled {
            await pollOnce(into: inbox)
            next = next.addingTimeInterval(pollInterval.seconds)
            let now = clock.now()
            if next <= now { next = now.addingTimeInterval(pollInterval.seconds) }
            do { try await clock.sleep(until: next, label: ProducerKey.transfers.pollLabel) } catch { return }
        }
    }

    /// One round over every exchange.
    package func pollOnce(into inbox: EngineInbox) async {
        for (source, assets) in sources {
            do {
                let report = try await FetchMetrics.timed(source.name) { () async throws(SourceError) in try await source.fetch(assets: assets) }
                if Task.isCancelled { return }
                inbox.send(.transfers(report))
                inbox.send(.sourceSucceeded(source: source.name))
            } catch {
                if Task.isCancelled { return }
                logger.debug("transfer status poll failed: \(error)", metadata: ["source": "\(source.name)"])
                inbox.send(.sourceFailed(source: source.name, message: error.message))
            }
        }
    }
}

extension TransferSigner {
    /// HMAC-SHA256 through swift-crypto.
    static let hmacSHA256 = TransferSigner { key, message in
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }
}
