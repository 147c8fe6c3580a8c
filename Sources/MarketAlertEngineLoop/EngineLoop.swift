import Foundation
import Logging
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage

/// The thin shell around the pure `AlertEngine`: reads the inbox, has the engine decide each input
/// (`EngineCore`), performs every decision in order (publish, status, log), and sleeps until the next event
/// or the engine's next deadline — never on a fixed tick. Stream quotes are decided on arrival, outside the
/// loop (`EngineInbox.post`); the loop hears of them only when they decided something or moved a deadline.
/// Also the watchdog's heartbeat: a stuck loop stops the pings.
///
/// Owner of one unstructured task, the deadline timer: it is replaced whenever the deadline moves earlier
/// and cancelled when `run()` returns.
package actor EngineLoop {
    private let core: EngineCore
    private let inbox: EngineInbox
    private let publisher: AlertPublisher
    private let clock: any DaemonClock
    private let lifecycle: any LifecycleObserver
    private let logger: Logger
    private var timer: Task<Void, Never>?
    /// Where the timer's task runs (the data path's loop in the daemon): an unstructured task does not
    /// inherit the loop's preference, and without one each re-arm and each firing woke a thread of Swift's
    /// global executor, which then handed the wake back to the loop.
    private let timerExecutor: (any TaskExecutor)?
    /// When the publisher tries sinks that failed again (a closed stdout, the journal away), without waiting
    /// for the next publication.
    private var sinkRetryDue: Date?
    private var lastWatchdog: Date?
    /// The status line last given to the service manager.
    private var lastStatusLine: String?
    private var observer: (any EngineLoopObserver)?
    /// Inputs (events and timer wakes) handled so far; with `EngineInbox.sent`, tells tests the loop has
    /// caught up.
    package private(set) var handled = 0
    /// `run()` has done its start (the start's decisions performed, the timer armed) and reads the inbox.
    private var reading = false

    package init(
        engine: AlertEngine, inbox: EngineInbox, publisher: AlertPublisher, clock: any DaemonClock,
        lifecycle: any LifecycleObserver = NoLifecycleObserver(), logger: Logger, timerExecutor: (any TaskExecutor)? = nil
    ) {
        self.timerExecutor = timerExecutor
        self.core = EngineCore(engine: engine, clock: clock)
        self.inbox = inbox
        self.publisher = publisher
        self.clock = clock
        self.lifecycle = lifecycle
        self.logger = logger
    }

    /// Lets liveness (`/healthz`) and metrics watch the loop; attach before `run()`.
    package func attach(_ observer: any EngineLoopObserver) {
        self.observer = observer
    }

    /// Runs until the inbox is finished (then after handling what was queued) or the task is cancelled.
    package func run() async {
        observer?.loopStarted(at: clock.now())
        defer { observer?.loopStopped() }
        let start = clock.now()
        core.decide { $0.start(now: start) }
        await performDecided()
        if sinkRetryDue == nil { sinkRetryDue = await publisher.nextSinkRetry }  // failures of the start's redelivery
        inbox.connect(core)
        reschedule()
        reading = true
        for await input in inbox.stream {
            let now = clock.now()
            switch input {
            case .event(let event):
                observer?.inputBegan(event, at: now)
                core.decide { $0.handle(event, now: now) }
            case .mailbox(let exchange):
                // Quotes posted before the loop ran. The observers see the batch as the event it becomes.
                let event = EngineEvent.quotes(exchange, inbox.mailbox.take(exchange), .update)
                observer?.inputBegan(event, at: now)
                if case .quotes(_, let quotes, _) = event, !quotes.isEmpty { core.decide { $0.handle(event, now: now) } }
            case .takeover(let restored, let epoch):
                observer?.inputBegan(nil, at: now)
                core.lead(epoch: epoch) { $0.adopt(restored, now: now) }
            case .wake:
                observer?.inputBegan(nil, at: now)
                core.timerFired()
                core.decide { engine in engine.nextDeadline(after: now).map { $0 <= now } == true ? engine.advance(now: now) : [] }
                if let due = sinkRetryDue, due <= now { sinkRetryDue = await publisher.retrySinks() }
            case .decided:
                observer?.inputBegan(nil, at: now)
            }
            core.markChanged()
            countDecidedQuotes()
            await performDecided()
            refreshStatusIfDue(now: now)
            pingWatchdogIfDue(now: now)
            reschedule()
            handled += 1
            observer?.inputEnded(at: clock.now())
            if Task.isCancelled { break }
        }
        await performDecided()  // stream quotes decided while the last inputs were handled
        countDecidedQuotes()
        // The history slots in progress are written, so the next start goes on with them.
        let stop = clock.now()
        core.decide { $0.stop(now: stop) }
        await performDecided()
        timer?.cancel()
        timer = nil
    }

    /// Whether the loop has started and handled every input sent so far, and when the deadline timer (if
    /// armed) wakes.
    package var idleState: (caughtUp: Bool, wake: Date?) { (reading && handled >= inbox.sent, core.armedWake) }

    /// A read of the engine as it stands (status, `once`, the HTTP API).
    package func snapshot<T: Sendable>(_ read: @Sendable (AlertEngine) -> T) -> T { core.read(read) }

    /// Tells the observers how many stream quotes were decided outside the loop since it last looked.
    private func countDecidedQuotes() {
        guard let observer else { return }
        let (counts, at) = core.takeDecidedCounts()
        guard let at else { return }
        for (exchange, quotes) in counts where quotes > 0 { observer.quotesDecided(exchange, count: quotes, at: at) }
    }

    /// Carries out everything decided so far, oldest first, including what is decided meanwhile.
    private func performDecided() async {
        while true {
            let decided = core.takeDecided()
            if decided.isEmpty { return }
            for item in decided {
                switch item {
                case .actions(let actions): await perform(actions)
                case .lead(let epoch): await publisher.beginLeading(epoch: epoch)
                }
            }
        }
    }

    private func perform(_ actions: [EngineAction]) async {
        for action in actions {
            switch action {
            case .publish(let publication):
                sinkRetryDue = await publisher.publish(publication)
            case .status(let line):
                core.statusSet(at: clock.now())
                lastStatusLine = line
                logger.debug("status: \(line)")
                lifecycle.status(line)
            case .log(let line):
                let metadata: Logger.Metadata = line.subject.map { ["source": "\($0)"] } ?? [:]
                logger.log(level: line.level.loggerLevel, "\(line.message)", metadata: metadata)
            }
        }
    }

    private func refreshStatusIfDue(now: Date) {
        guard let line = core.statusLineIfDue(now: now) else { return }
        if line != lastStatusLine {
            logger.debug("status: \(line)")
            lifecycle.status(line)
        }
        lastStatusLine = line
    }

    private func pingWatchdogIfDue(now: Date) {
        guard let interval = lifecycle.watchdogInterval else { return }
        if lastWatchdog.map({ now.timeIntervalSince($0) >= interval.seconds * 0.9 }) ?? true {
            lastWatchdog = now
            lifecycle.watchdog()
        }
    }

    /// Sets the timer for the earliest of the engine's next deadline, the status refresh, a sink retry and
    /// the next watchdog ping.
    private func reschedule() {
        let now = clock.now()
        var extra = sinkRetryDue
        if let interval = lifecycle.watchdogInterval {
            let ping = (lastWatchdog ?? now).addingTimeInterval(interval.seconds)
            extra = min(extra ?? ping, ping)
        }
        let (replace, wake) = core.rearm(now: now, extra: extra)
        guard replace else { return }
        timer?.cancel()
        guard let wake else {
            timer = nil
            return
        }
        let clock = clock
        let inbox = inbox
        // Unstructured on purpose: owned by this loop (`timer`), cancelled and replaced at every re-arm.
        timer = Task(executorPreference: timerExecutor) {
            do { try await clock.sleep(until: wake, label: .engineDeadline) } catch { return }
            inbox.wake()
        }
    }
}

extension EngineLogLine.Level {
    package var loggerLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}
