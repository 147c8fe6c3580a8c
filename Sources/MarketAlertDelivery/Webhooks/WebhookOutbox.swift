import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage
import ServiceLifecycle

/// The durable sinks' one outbox: a queue in the state store plus one delivery loop per `DeliveryTarget`
/// (webhooks today). A new durable sink is a `DeliveryTarget`; queue, backends, retries, HA fencing and
/// metrics are this type's.
///
/// `deliver` only renders the body and inserts a row per matching target (one short SQLite transaction),
/// then wakes those webhooks' loops; it never waits for HTTP, so a slow or dead receiver delays neither alert
/// evaluation nor the other sinks. Each loop sends its webhook's rows in order, retrying 408, 429, 5xx,
/// timeouts and connection errors with backoff until `max_age`, dropping other failures at once. Rows stay
/// in the table until delivered or dropped, so after a crash or restart they are sent again with their
/// original ids (at least once; receivers dedupe on `webhook-id`).
///
/// Lifecycle: `run()` starts the loops and returns when stopped. On graceful shutdown (ServiceLifecycle, or
/// `stopGracefully()`) a loop in the middle of an attempt finishes and records it (bounded by the webhook's
/// timeout); idle or waiting loops stop at once. On cancellation in-flight requests are abandoned and
/// their rows kept. `deliver` keeps queueing after `run()` returned; those rows go out after the next start.
package actor WebhookOutbox: RoutedAlertSink, Service {
    package nonisolated let name = "webhooks"

    private let store: any WebhookQueueStore
    /// Makes the webhooks' targets (`update(targets:)`); nil when the outbox was given targets directly.
    private let sender: WebhookSender?
    private let clock: any DaemonClock
    private let logger: Logger
    private let policy: WebhookRetryPolicy
    private let random: @Sendable () -> Double
    private let report: @Sendable (WebhookDeliveryReport) -> Void
    private let stopSignal = WebhookOutboxStopSignal()

    private enum Phase { case notStarted, running, stopped }
    private var phase = Phase.notStarted
    private var controls: [String: WebhookLoopControl] = [:]
    private var loops: [String: Task<Void, Never>] = [:]
    /// Loops of removed webhooks that may still be finishing an attempt; a re-added webhook waits for them.
    private var retiring: [String: Task<Void, Never>] = [:]

    /// - Parameters:
    ///   - targets: the enabled webhooks (`WebhookTarget.resolve`). Names must be unique; later duplicates are ignored.
    ///   - client: used for every POST. Redirects, if the client follows them, count as permanent failures.
    ///   - random: 0..<1 for the backoff jitter.
    ///   - onReport: called after each attempt's outcome is stored (status, metrics, tests). Must be quick.
    package init(
        store: any WebhookQueueStore, targets: [WebhookTarget], client: HTTPClient, clock: any DaemonClock, logger: Logger,
        policy: WebhookRetryPolicy = WebhookRetryPolicy(), random: @escaping @Sendable () -> Double = { .random(in: 0..<1) },
        onReport: @escaping @Sendable (WebhookDeliveryReport) -> Void = { _ in }
    ) {
        let sender = WebhookSender(client: client)
        self.init(
            store: store, deliveryTargets: targets.map { WebhookDelivery($0, sender: sender) }, sender: sender, clock: clock,
            logger: logger, policy: policy, random: random, onReport: onReport)
    }

    /// An outbox over any `DeliveryTarget`s (names unique; later duplicates are ignored).
    package init(
        store: any WebhookQueueStore, deliveryTargets: [any DeliveryTarget], sender: WebhookSender? = nil, clock: any DaemonClock,
        logger: Logger, policy: WebhookRetryPolicy = WebhookRetryPolicy(),
        random: @escaping @Sendable () -> Double = { .random(in: 0..<1) },
        onReport: @escaping @Sendable (WebhookDeliveryReport) -> Void = { _ in }
    ) {
        self.store = store
        self.sender = sender
        self.clock = clock
        self.logger = logger
        self.policy = policy
        self.random = random
        self.report = onReport
        for target in deliveryTargets where controls[target.name] == nil {
            controls[target.name] = WebhookLoopControl(target: target)
        }
    }

    // MARK: AlertSink

    /// Queues `event` for every target whose `kinds` include its kind, then wakes their loops.
    package func deliver(_ event: AlertEvent) async throws {
        try await deliver(event, toTargets: nil)
    }

    /// v3 routes: queues `event` for the named targets only (nil: every target), each still filtered by its
    /// `kinds`; a name that is not a target (removed by a reload) is skipped.
    @discardableResult
    package func deliver(_ event: AlertEvent, toTargets names: [String]?) async throws -> [String] {
        let now = clock.now()
        var entries: [WebhookOutboxEntry] = []
        let chosen = names.map(Set.init)
        for name in controls.keys.sorted() where chosen?.contains(name) ?? true {
            guard let target = controls[name]?.target, target.kinds.contains(event.kind) else { continue }
            do {
                let body = try target.render(event)
                entries.append(
                    WebhookOutboxEntry(
                        webhook: name, eventID: event.id, body: body, expiresAt: now.addingTimeInterval(target.maxAge.seconds)))
            } catch {
                logger.error(
                    "cannot render event for webhook: \(error)", metadata: ["webhook": "\(name)", "event_id": "\(event.id)"])
            }
        }
        guard !entries.isEmpty else { return [] }
        do {
            try await store.enqueueWebhookNotifications(entries, at: now)
        } catch {
            let names = entries.map(\.webhook).joined(separator: ", ")
            throw SinkFailure(sink: name, message: "cannot queue the event for webhooks \(names): \(error)")
        }
        for entry in entries { controls[entry.webhook]?.wake() }
        return entries.map(\.webhook)
    }

    // MARK: Lifecycle

    /// Starts a delivery loop per webhook and returns once stopped (graceful shutdown, `stopGracefully()`
    /// or cancellation) and every loop has ended.
    package func run() async {
        guard phase == .notStarted else {
            logger.warning("webhook outbox: run() called again; ignored")
            return
        }
        phase = .running
        await purgeRemovedWebhooks()
        for name in controls.keys.sorted() { startLoop(name) }
        let signal = stopSignal
        let mode = await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await signal.wait()
            } onGracefulShutdown: {
                signal.signal(.graceful)
            }
        } onCancel: {
            signal.signal(.cancel)
        }
        phase = .stopped
        for (name, task) in loops {
            if mode == .cancel || controls[name]?.requestStop() ?? true { task.cancel() }
        }
        let tasks = Array(loops.values) + Array(retiring.values)
        loops.removeAll()
        retiring.removeAll()
        await withTaskCancellationHandler {
            for task in tasks { await task.value }
        } onCancel: {
            for task in tasks { task.cancel() }
        }
        logger.debug("webhook outbox stopped")
    }

    /// Stops the loops like a graceful shutdown: in-flight attempts finish and are recorded first.
    package nonisolated func stopGracefully() {
        stopSignal.signal(.graceful)
    }

    /// Applies a reloaded configuration. New webhooks start, changed ones use their new settings from their
    /// next attempt (a pending backoff wait is not cut short), removed ones stop after any in-flight attempt.
    /// A removed webhook's queued rows stay in the table: they are sent if it comes back under the same name,
    /// and are purged at the next start or reload once past the max_age they were queued with.
    package func update(targets: [WebhookTarget]) async {
        guard let sender else {
            logger.error("webhook outbox: cannot apply webhooks to an outbox made without an HTTP client")
            return
        }
        await update(deliveryTargets: targets.map { WebhookDelivery($0, sender: sender) })
    }

    /// `update(targets:)` for any `DeliveryTarget`s.
    package func update(deliveryTargets: [any DeliveryTarget]) async {
        var wanted: [String: any DeliveryTarget] = [:]
        for target in deliveryTargets where wanted[target.name] == nil { wanted[target.name] = target }
        for name in controls.keys.sorted() where wanted[name] == nil {
            let control = controls.removeValue(forKey: name)
            if let task = loops.removeValue(forKey: name) {
                if control?.requestStop() ?? true { task.cancel() }
                retiring[name] = task
            }
        }
        for name in wanted.keys.sorted() {
            guard let target = wanted[name] else { continue }
            if let control = controls[name] {
                if !control.target.isSame(as: target) { control.replace(target) }
            } else {
                controls[name] = WebhookLoopControl(target: target)
                if phase == .running { startLoop(name) }
            }
        }
        await purgeRemovedWebhooks()
    }

    /// HA takeover: every loop looks at its queue again (a standby's loops wait for this).
    package func wakeAll() {
        for control in controls.values { control.wake() }
    }

    /// Notifications of `webhook` still queued (including the one being attempted).
    package func pendingCount(webhook: String) async throws -> Int {
        try await store.webhookOutboxCount(webhook: webhook)
    }

    // MARK: Private

    private func startLoop(_ name: String) {
        guard let control = controls[name] else { return }
        let loop = WebhookDeliveryLoop(
            control: control, store: store, clock: clock, logger: logger, policy: policy, random: random,
            report: report)
        let predecessor = retiring.removeValue(forKey: name)
        // `run` is `@concurrent`: it runs off this actor, so its SQLite calls and waits never block `deliver`.
        // Unstructured on purpose: owned by this outbox (`loops`, then `retiring`), which stops it when its
        // webhook is removed and awaits it when the outbox stops.
        loops[name] = Task { await loop.run(after: predecessor) }
    }

    private func purgeRemovedWebhooks() async {
        do {
            let purged = try await store.purgeExpiredWebhookNotifications(exceptFor: Set(controls.keys), now: clock.now())
            for (webhook, count) in purged.sorted(by: { $0.key < $1.key }) {
                logger.error(
                    "dropped \(count) queued notification(s) of webhook no longer configured: past their max_age",
                    metadata: ["webhook": "\(webhook)"])
            }
        } catch is HAWriteRefused {
            // A standby: the leader purges.
        } catch {
            logger.error("cannot purge the webhook outbox: \(error)")
        }
    }
}
