import Foundation

/// The daemon's decisions, as one pure value: the quote book, FX, source health, the settle gate and every
/// alert state machine (premium, source, FX move, IPO subscription). A central type, split by concern into
/// `AlertEngine+<Concern>.swift`.
///
/// `handle(_:now:)` takes one event and returns what to do (persist and publish notifications, update the
/// status line, log); `advance(now:)` does the same when time alone fell due (`for`, repeats, silent
/// sources, IPO boundaries, FX freshness), and `nextDeadline` says when that is. No I/O, no clock: a thin
/// shell (`EngineLoop`) sleeps until the next event or deadline, never on a fixed tick.
package struct AlertEngine: Sendable {
    package internal(set) var settings: Settings
    /// Source of event ids (random UUIDs in the daemon; predictable in tests).
    let makeID: @Sendable () -> String

    package internal(set) var book = QuoteBook()
    package internal(set) var premium = PremiumEvaluator()
    var gate = SettleGate()
    /// Source health, the `source/<name>` alerts, live streams and silence (`SourceHealthMachine`).
    var sources: SourceHealthMachine
    /// FX: rates, failover selection, the jump guard, the move alerts (`FXMachine`).
    var fx: FXMachine
    /// Rebuilt only when the FX selection or the premium settings change (it precomputes its factors).
    var converter = CurrencyConverter(reference: "USD", stablecoinsAs: [:], usdRates: [:])
    /// Exchanges with a `source/<exchange>/data` alert firing (an implausible premium).
    var dataProblems: Set<ExchangeID> = []
    /// Quotes whose own time was implausible (`QuoteClock`) and was replaced by their receive time, per
    /// exchange since start (`/metrics` reads it: `quotes_rejected_total{reason="clock"}`), and when each
    /// exchange's last such log line was written.
    package internal(set) var quoteClockRejections: [ExchangeID: Int] = [:]
    var quoteClockLogged: [ExchangeID: Date] = [:]
    /// The IPO subscription windows (`IPOMachine`).
    var ipo: IPOMachine
    /// v3 USDT/KRW from the Korean exchanges' KRW-USDT markets and the tether premium (`USDTKRWMachine`).
    var usdtKrw: USDTKRWMachine
    /// v3 `listings:`: each exchange's known market list and the `listing/…` notifications (`ListingMachine`).
    var listings: ListingMachine
    /// v3 deposit and withdrawal status and the `transfer/…` alerts (`TransferMachine`).
    var transfers: TransferMachine
    var lastStatus: String?
    var lastStatusSettled = false
    /// Silences and the record of every firing key (`SilenceMachine`).
    var silencing = SilenceMachine()
    /// When history is published and pruned, and the daily digest (`HistoryMachine`).
    var history: HistoryMachine

    /// States restored from the store.
    package struct Restored: Sendable {
        package var premium: [String: LeveledAlertStateMachine] = [:]
        package var sources: [String: SourceHealth] = [:]
        package var fx: [String: LeveledAlertStateMachine] = [:]
        package var ipo: [String: IPOAlertState] = [:]
        /// v3 `transfer/<exchange>/<asset>` alert states.
        package var transfers: [String: TransferAlertState] = [:]
        /// v3 `listings/<exchange>`: the known market lists.
        package var listings: [String: ListingBook] = [:]
        /// Stored history folded for the context rings and the digest, and the last digest day.
        package var history: HistoryWarmup?
        package var digestDay: String?

        package init() {}
    }

    package init(settings: Settings, restored: Restored = Restored(), now: Date, makeID: @escaping @Sendable () -> String) {
        self.settings = settings
        self.makeID = makeID
        premium = PremiumEvaluator(states: restored.premium)
        sources = SourceHealthMachine(restored: restored.sources, watched: Set(settings.watchedPairsByExchange.keys), now: now)
        fx = FXMachine(restored: restored.fx.filter { $0.key != TetherPremium.key })
        usdtKrw = USDTKRWMachine(restored: restored.fx[TetherPremium.key])
        listings = ListingMachine(restored: restored.listings)
        ipo = IPOMachine(settings: settings.ipo, restored: restored.ipo, now: now)
        transfers = TransferMachine(restored: restored.transfers)
        _ = premium.retain(settings: settings.premium)
        history = HistoryMachine(
            warmup: restored.history, digestDay: restored.digestDay, rings: &premium.history, settings: settings, now: now)
        awaitSources(settings, now: now, only: nil)
    }

    /// The first actions of a run: the status line ("waiting for binance, dunamu") and what is awaited.
    package mutating func start(now: Date) -> [EngineAction] {
        var out = EngineOutput()
        if !gate.isSettled { out.log(.info, "waiting for the first answer of \(awaitedSources.joined(separator: ", ")) before evaluating") }
        sendLateDigest(now: now, into: &out)
        updateStatus(now: now, into: &out, force: true)
        return out.actions
    }

    /// Applies one event at `now`.
    package mutating func handle(_ event: EngineEvent, now: Date) -> [EngineAction] {
        var out = EngineOutput()
        switch event {
        case .quotes(let exchange, let quotes, let delivery):
            receiveQuotes(exchange, quotes, delivery: delivery, now: now, into: &out)
        case .sourceFailed(let source, let message):
            sourceFailed(source, message: message, now: now, into: &out)
        case .sourceSucceeded(let source):
            recordSource(source, error: nil, now: now, into: &out)
        case .stream(let exchange, let live, let reason):
            streamChanged(exchange, live: live, reason: reason, now: now, into: &out)
        case .fxRound(let fxBook, let failover):
            receiveFX(fxBook, failover: failover, now: now, into: &out)
        case .ipoOfferings(let source, let offerings):
            ipo.receive(offerings, from: source, context: context(now), into: &out)
        case .ipoMarketPrices(let report):
            ipo.receivePrices(report, context: context(now), into: &out)
        case .transfers(let report):
            receiveTransfers(report, now: now, into: &out)
        case .marketList(let exchange, let markets):
            receiveMarketList(exchange, markets, now: now, into: &out)
        case .settings(let newSettings):
            reload(newSettings, now: now, into: &out)
        case .silences(let snapshot):
            receiveSilences(snapshot, now: now, into: &out)
        case .historyRebuilt(let rebuilt):
            receiveRebuiltHistory(rebuilt)
        }
        let quotesOnly = if case .quotes = event { true } else { false }
        processSilences(now: now, quotesOnly: quotesOnly, into: &out)
        updateStatus(now: now, into: &out)
        return out.actions
    }

    /// Applies the passage of time up to `now`: `for` and repeat deadlines, stale quotes, silent sources,
    /// IPO boundaries and FX freshness.
    package mutating func advance(now: Date) -> [EngineAction] {
        var out = EngineOutput()
        for name in gate.expire(now: now) {
            out.log(.warning, "\(displayName(name)) has not answered its first fetch in time; declared down, its rules evaluate without it", subject: name)
        }
        reevaluateEverything(now: now, into: &out)
        advanceHistory(now: now, into: &out)
        processSilences(now: now, into: &out)
        updateStatus(now: now, into: &out)
        return out.actions
    }

    /// FX selection, every premium rule, silent sources and IPO boundaries, as they stand at `now` (a
    /// deadline, or a takeover's adoption).
    mutating func reevaluateEverything(now: Date, into out: inout EngineOutput) {
        refreshFXSelection(now: now, into: &out)
        evaluatePremiums(involving: nil, now: now, into: &out)
        checkSilence(now: now, into: &out)
        ipo.evaluateAll(context: context(now), into: &out)
    }

    /// The earliest of the deadlines a batch of stream quotes can bring forward: the premium states' (a `for`
    /// starting, a pending key's quotes) and the history's (a key's first sample opens a slot). The others
    /// only move later with quotes (the settle gate, silence) or not at all (FX, IPO, silence ends), so after
    /// deciding quotes this is enough to tell whether the loop's timer must be re-armed earlier, at a
    /// fraction of `nextDeadline`'s cost.
    package func quoteDrivenDeadline() -> Date? {
        guard let history = historyDeadline() else { return premiumDeadline() }
        return premiumDeadline().map { min($0, history) } ?? history
    }

    /// The earliest instant at which `advance` could change something, if any.
    package func nextDeadline(after now: Date) -> Date? {
        // The earliest, without an array per call (the engine loop asks after every input).
        var earliest = premiumDeadline()
        func consider(_ deadline: Date?) {
            if let deadline, earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
        }
        consider(quietSourceDeadline())
        consider(ipo.deadline)
        consider(fx.deadline())
        consider(usdtKrwDeadline())
        consider(gate.nextExpiry)
        consider(silenceEndDeadline(after: now))
        consider(historyDeadline())
        return earliest
    }

    /// Whether every source has answered once (or was declared down): `/readyz`, `STATUS=`.
    package var isSettled: Bool { gate.isSettled }

    /// Sources not yet answered, for the status line ("waiting for binance, dunamu").
    package var awaitedSources: [String] { gate.awaiting.map(displayName).sorted() }
}

/// Collects an event's actions: one publication (states and notifications committed together) plus logs.
struct EngineOutput {
    var publication = Publication()
    var other: [EngineAction] = []

    mutating func log(_ level: EngineLogLine.Level, _ message: String, subject: String? = nil) {
        other.append(.log(EngineLogLine(level, message, subject: subject)))
    }

    var actions: [EngineAction] {
        publication.isEmpty ? other : [.publish(publication)] + other
    }
}
