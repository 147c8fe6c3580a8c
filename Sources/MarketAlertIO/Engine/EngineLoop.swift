import Foundation
import Logging
import MarketAlertCore

/// The thin shell around the pure `AlertEngine`: reads the inbox, hands each event to the engine, performs
/// the actions it returns (publish, status, log), and sleeps until the next event or the engine's next
/// deadline — never on a fixed tick. Also the watchdog's heartbeat: a stuck loop stops the pings.
///
/// Owner of one unstructured task, the deadline timer: it is replaced whenever the deadline moves and
/// cancelled when `run()` returns.
package actor EngineLoop {
    private var engine: AlertEngine
    private let inbox: EngineInbox
    private let publisher: AlertPublisher
    private let clock: any DaemonClock
    private let lifecycle: any LifecycleObserver
    private let logger: Logger
    private var timer: Task<Void, Never>?
    private var scheduledWake: Date?
    /// When the publisher tries sinks that failed again (a closed stdout, the journal away), without waiting
    /// for the next publication.
    private var sinkRetryDue: Date?
    private var lastWatchdog: Date?
    /// The status line is refreshed at most once a second, after inputs changed something.
    private var lastStatus: (line: String, at: Date)?
    private var statusDirty = false
    private var observer: (any EngineLoopObserver)?
    /// Inputs (events and timer wakes) handled so far; with `EngineInbox.sent`, tells tests the loop has
    /// caught up.
    package private(set) var handled = 0

    package init(
        engine: AlertEngine, inbox: EngineInbox, publisher: AlertPublisher, clock: any DaemonClock,
        lifecycle: any LifecycleObserver = NoLifecycleObserver(), logger: Logger
    ) {
        self.engine = engine
        self.inbox = inbox
        self.publisher = publisher
        self.clock = clock
        self.lifecycle = lifecycle
        self.logger = logger
    }

    /// Lets liveness (`/healthz`) and metrics watch the loop; attach before `run()`.
    package func attach(_ observer: any EngineLoopObserver) { self.observer = observer }

    /// Runs until the inbox is finished (then after handling what was queued) or the task is cancelled.
    package func run() async {
        observer?.loopStarted(at: clock.now())
        defer { observer?.loopStopped() }
        await perform(engine.start(now: clock.now()))
        if sinkRetryDue == nil { sinkRetryDue = await publisher.nextSinkRetry }  // failures of the start's redelivery
        reschedule()
        for await input in inbox.stream {
            let now = clock.now()
            switch input {
            case .event(let event):
                observer?.inputBegan(event, at: now)
                await perform(engine.handle(event, now: now))
            case .mailbox(let exchange):
                // The observers see the coalesced batch as the event it becomes (stream quotes are counted).
                let event = EngineEvent.quotes(exchange, inbox.mailbox.take(exchange), .update)
                observer?.inputBegan(event, at: now)
                if case .quotes(_, let quotes, _) = event, !quotes.isEmpty { await perform(engine.handle(event, now: now)) }
            case .takeover(let restored, let epoch):
                observer?.inputBegan(nil, at: now)
                await publisher.beginLeading(epoch: epoch)
                await perform(engine.adopt(restored, now: now))
            case .wake:
                observer?.inputBegan(nil, at: now)
                scheduledWake = nil
                if let due = Self.nextDeadline(of: &engine, after: now), due <= now {
                    await perform(engine.advance(now: now))
                }
                if let due = sinkRetryDue, due <= now { sinkRetryDue = await publisher.retrySinks() }
            }
            statusDirty = true
            refreshStatusIfDue(now: now)
            pingWatchdogIfDue(now: now)
            reschedule()
            handled += 1
            observer?.inputEnded(at: clock.now())
            if Task.isCancelled { break }
        }
        timer?.cancel()
        timer = nil
    }

    /// Whether every input sent so far has been handled, and when the deadline timer (if armed) wakes.
    package var idleState: (caughtUp: Bool, wake: Date?) { (handled >= inbox.sent, scheduledWake) }

    /// A read of the engine as it stands (status, `once`, the HTTP API).
    package func snapshot<T: Sendable>(_ read: @Sendable (AlertEngine) -> T) -> T { read(engine) }

    private func perform(_ actions: [EngineAction]) async {
        for action in actions {
            switch action {
            case .publish(let publication):
                sinkRetryDue = await publisher.publish(publication)
            case .status(let line):
                lastStatus = (line, clock.now())
                logger.debug("status: \(line)")
                lifecycle.status(line)
            case .log(let line):
                let metadata: Logger.Metadata = line.subject.map { ["source": "\($0)"] } ?? [:]
                logger.log(level: line.level.loggerLevel, "\(line.message)", metadata: metadata)
            }
        }
    }

    private func refreshStatusIfDue(now: Date) {
        guard statusDirty else { return }
        if let last = lastStatus, now.timeIntervalSince(last.at) < 1 { return }
        statusDirty = false
        let line = engine.statusLine(now: now)
        if line != lastStatus?.line {
            logger.debug("status: \(line)")
            lifecycle.status(line)
        }
        lastStatus = (line, now)
    }

    private func pingWatchdogIfDue(now: Date) {
        guard let interval = lifecycle.watchdogInterval else { return }
        if lastWatchdog.map({ now.timeIntervalSince($0) >= interval.seconds * 0.9 }) ?? true {
            lastWatchdog = now
            lifecycle.watchdog()
        }
    }

    /// The engine's next deadline, read in place: a plain read of the stored engine copied the whole value
    /// (retaining and releasing each of its dozens of references) on every input.
    private static func nextDeadline(of engine: inout AlertEngine, after now: Date) -> Date? {
        engine.nextDeadline(after: now)
    }

    /// Sets the timer for the earlier of the engine's next deadline and the next watchdog ping.
    private func reschedule() {
        let now = clock.now()
        var wake = Self.nextDeadline(of: &engine, after: now)
        if let due = sinkRetryDue { wake = min(wake ?? due, due) }
        if statusDirty, let last = lastStatus {
            let due = last.at.addingTimeInterval(1)
            wake = min(wake ?? due, due)
        }
        if let interval = lifecycle.watchdogInterval {
            let ping = (lastWatchdog ?? now).addingTimeInterval(interval.seconds)
            wake = min(wake ?? ping, ping)
        }
        guard wake != scheduledWake else { return }
        // A wake that only moved later keeps the armed timer: it fires early, finds nothing due and re-arms.
        // Replacing the timer whenever the deadline moved cost a task per stream quote (the oldest quote's
        // expiry moves with every quote).
        if let wake, let armed = scheduledWake, armed < wake { return }
        scheduledWake = wake
        timer?.cancel()
        guard let wake else {
            timer = nil
            return
        }
        let clock = clock
        let inbox = inbox
        timer = Task {
            do { try await clock.sleep(until: wake) } catch { return }
            inbox.wake()
        }
    }
}

extension EngineLogLine.Level {
    var loggerLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}
