import Foundation
import Logging
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit

/// v3 `assets: all` and `min_volume_24h`: reads the market lists and 24 h volumes of the exchanges such rules
/// name (at start, hourly and on reload), resolves each rule's assets and ignored markets
/// (`Settings.resolvingAssets`) and applies the resolved settings like a reload when they changed: exchange
/// producers whose pairs changed restart (their streams subscribe the new list in the batches each
/// exchange allows), the engine awaits them again (an asset that joins settles) and resolves, quietly, a
/// firing asset that left.
///
/// Applies are serial (a reload and an hourly refresh never interleave). An exchange whose read fails keeps
/// its previous markets. Volumes in a currency without a rate yet (KRW before the first FX round) are
/// resolved again shortly after, without a new request.
package actor AssetUniverseRefresher {
    package static let label = ClockLabel.poll("assets")
    private let sources: @Sendable (ExchangeSettings) -> (any MarketUniverseSource)?
    private let clock: any DaemonClock
    private let logger: Logger
    private let interval: Duration
    private let retry: Duration
    /// Applies resolved settings (producers, then the engine).
    private let apply: @Sendable (Settings) async -> Void
    /// The engine's converter of volumes into the reference currency, as it stands.
    private let converter: @Sendable () async -> CurrencyConverter
    private var configured: Settings
    private var universe = MarketUniverse()
    private var applied: Settings?
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package init(
        settings: Settings, sources: @escaping @Sendable (ExchangeSettings) -> (any MarketUniverseSource)?, clock: any DaemonClock,
        logger: Logger, interval: Duration = .seconds(3600), retry: Duration = .seconds(5),
        converter: @escaping @Sendable () async -> CurrencyConverter, apply: @escaping @Sendable (Settings) async -> Void
    ) {
        configured = settings
        self.sources = sources
        self.clock = clock
        self.logger = logger
        self.interval = interval
        self.retry = retry
        self.converter = converter
        self.apply = apply
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The settings with the lists as last read (before the first read: `assets: all` rules watch nothing).
    package func resolved(_ settings: Settings) async -> Settings {
        settings.resolvingAssets(in: universe, converter: await converter())
    }

    private var lastRead: Date?
    /// Whether the refresh loop refreshes (a rule needs the lists); until then `run()` idles.
    private var enabled = false
    /// Wakes `run()` when `start` enables it.
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// Enables the refresh loop (the daemon does when a rule needs the lists, at start or at a reload);
    /// `initial`: the settings already applied, when none went through this refresher.
    package func start(applied initial: Settings) {
        guard !enabled else { return }
        if applied == nil { applied = initial }
        enabled = true
        wake.yield()
    }

    /// Whether the refresh loop is enabled (then every reload goes through `reload`).
    package var isRunning: Bool { enabled }

    /// The refresh loop, a child task of the data path (`DataPathService.run`): idle until `start`, then
    /// refreshes at once and every `interval` (sooner while some volume has no rate), until cancelled.
    package func run() async {
        for await _ in wakes where enabled { break }
        while enabled, !Task.isCancelled {
            let due = lastRead.map { clock.now().timeIntervalSince($0) >= interval.seconds - 1 } ?? true
            let wait = await refresh(fetch: due)
            do { try await clock.sleep(for: wait, label: Self.label) } catch { return }
        }
    }

    /// `marketalertd once`: the settings resolved after one read of the lists (no FX yet: a volume floor
    /// in a currency that needs a rate leaves those markets out).
    package func readOnce(_ settings: Settings) async -> Settings {
        await read(settings.universeExchanges, settings: settings)
        return await resolved(settings)
    }

    /// A reload: the lists are read again, the new settings resolved with them and applied.
    package func reload(_ settings: Settings) async {
        await acquire()
        configured = settings
        if settings.needsAssetUniverse {
            lastRead = clock.now()
            await read(settings.universeExchanges, settings: settings)
        }
        await resolveAndApply(force: true)
        release()
    }

    /// One refresh; returns how long to wait before the next.
    @discardableResult
    func refresh(fetch: Bool) async -> Duration {
        await acquire()
        defer { release() }
        if fetch {
            lastRead = clock.now()
            await read(configured.universeExchanges, settings: configured)
        }
        let unconverted = await resolveAndApply(force: false)
        return unconverted ? min(retry, interval) : interval
    }

    /// Reads the exchanges' markets concurrently; a failure keeps the exchange's previous list.
    private func read(_ exchanges: Set<ExchangeID>, settings: Settings) async {
        let made = exchanges.sorted().compactMap { id in settings.exchanges[id].flatMap { sources($0) } }
        let results = await withTaskGroup(of: (ExchangeID, Result<[UniverseMarket], SourceError>).self) { group in
            for source in made {
                group.addTask {
                    do throws(SourceError) { return (source.exchange, .success(try await source.fetchUniverse())) } catch {
                        return (source.exchange, .failure(error))
                    }
                }
            }
            var all: [(ExchangeID, Result<[UniverseMarket], SourceError>)] = []
            for await result in group { all.append(result) }
            return all
        }
        for (exchange, result) in results {
            switch result {
            case .success(let markets):
                universe.set(exchange, markets)
                logger.debug("market universe read", metadata: ["exchange": "\(exchange)", "markets": "\(markets.count)"])
            case .failure(let error):
                logger.warning(
                    "market universe read failed; the previous list stays", metadata: ["exchange": "\(exchange)", "error": "\(error.message)"])
            }
        }
    }

    /// Resolves and applies when the result differs from what was applied (always on a reload). Returns
    /// whether some floored rule met a volume it could not convert.
    @discardableResult
    private func resolveAndApply(force: Bool) async -> Bool {
        let converter = await converter()
        let resolved = configured.resolvingAssets(in: universe, converter: converter)
        if force || resolved != applied {
            if let applied, !force { logChanges(from: applied, to: resolved) }
            applied = resolved
            await apply(resolved)
        }
        return hasUnconvertedVolume(converter)
    }

    private func hasUnconvertedVolume(_ converter: CurrencyConverter) -> Bool {
        for rule in configured.premium.rules where rule.selection.minVolume24h > 0 {
            for exchange in rule.exchanges {
                for market in universe.markets[exchange] ?? [] where rule.quotes.contains(market.pair.quote) && market.volume24h != nil {
                    if converter.toReference(1, currency: market.pair.quote) == nil { return true }
                }
            }
        }
        return false
    }

    private func logChanges(from old: Settings, to new: Settings) {
        for rule in new.premium.rules where rule.selection.all {
            let before = Set(old.premium.rules.first { $0.name == rule.name }?.assets ?? [])
            let now = Set(rule.assets)
            let joined = now.subtracting(before).sorted()
            let left = before.subtracting(now).sorted()
            guard !joined.isEmpty || !left.isEmpty else { continue }
            logger.info("watched assets changed", metadata: [
                "rule": "\(rule.name)", "assets": "\(now.count)", "joined": "\(joined.joined(separator: ","))",
                "left": "\(left.joined(separator: ","))",
            ])
        }
    }

    private func acquire() async {
        while busy { await withCheckedContinuation { waiters.append($0) } }
        busy = true
    }

    private func release() {
        busy = false
        if !waiters.isEmpty { waiters.removeFirst().resume() }
    }
}
