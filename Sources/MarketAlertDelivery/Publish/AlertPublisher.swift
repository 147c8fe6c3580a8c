import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// The one path from a decision to the sinks, for every kind of alert: commit (states, deletions and the
/// notifications they caused, in one transaction) → fan-out to the sinks → clear. Notifications a crashed
/// run committed but did not clear are delivered again at start with their original ids (`redeliverPending`).
/// Silences, history, metrics and HA fencing belong here, once.
///
/// A sink that fails (`SinkFailure`) is logged; the event stays pending and that sink alone is retried on
/// the next publication or at `nextSinkRetry` (the engine loop's timer calls `retrySinks`), whichever
/// comes first, while the other sinks go on. A restart re-delivers a still-pending event to every sink:
/// at-least-once with a stable id, never lost.
package actor AlertPublisher {
    package let store: (any AlertStore)?
    private let clock: any DaemonClock
    package var publicationClock: any DaemonClock { clock }
    package let logger: Logger
    private var sinks: [any AlertSink]
    private var retries = SinkRetryQueue()
    /// Events a queued sink (stdout) took but has not written yet, by id: the sinks still to report. Such an
    /// event stays pending in the store until every one of them reports it written.
    private var unwritten: [String: Set<String>] = [:]
    /// When the sinks that failed are tried again without waiting for a publication (nil: none waits).
    package private(set) var nextSinkRetry: Date?
    private var hooks: (any PublicationHooks)?
    /// HA only (nil: a single instance): whether and with which epoch this instance leads (`AlertPublisher+HA`).
    package var ha: PublisherLeadership?
    /// v3 routes, time windows and inhibition (nil: none configured; `AlertPublisher+Routing`).
    var router: NotificationRouter?
    /// The durable targets a routed event waiting for a sink retry was routed to, by event id.
    var routedTargets: [String: [String]] = [:]
    /// `deliverReleased` is sending what the router released (a call meanwhile leaves the rest to it).
    var deliveringReleased = false

    package init(store: (any AlertStore)?, sinks: [any AlertSink], clock: any DaemonClock, logger: Logger) {
        self.store = store
        self.sinks = sinks
        self.clock = clock
        self.logger = logger
    }

    /// Metrics and the silence store's share of each publication (`PublicationHooks`).
    package func attach(_ hooks: any PublicationHooks) { self.hooks = hooks }

    /// Replaces the sinks (a reload); events waiting for a retry go to the new set's sink of the same name.
    package func replaceSinks(_ sinks: [any AlertSink]) { self.sinks = sinks }

    /// The sinks routes choose among (the outbox), and the hooks that count routing.
    var sinksForRouting: [any AlertSink] { sinks.filter { $0 is any RoutedAlertSink } }
    var hooksForRouting: (any PublicationHooks)? { hooks }

    /// Commits, delivers, clears. A failed commit is logged and delivery still goes ahead: a possible repeat
    /// after a restart is better than a lost notification. Returns `nextSinkRetry`.
    @discardableResult
    package func publish(_ publication: Publication) async -> Date? {
        guard !publication.isEmpty else { return nextSinkRetry }
        var publication = publication
        // Routed before the commit (a standby routes nothing), so what the router holds afterwards is committed
        // with the publication that changed it.
        let routed = ha == nil || ha?.epoch != nil ? route(publication.events, recordingIn: &publication) : []
        if let ha {
            // HA: a standby publishes nothing; a leader delivers only what a fenced commit saved.
            guard await commitLeading(publication, ha: ha) else { return nextSinkRetry }
        } else if let store {
            do { try await store.commit(publication, at: clock.now()) } catch {
                let keys = (publication.states.map(\.key) + publication.events.map(\.key)).uniqued().joined(separator: ", ")
                logger.error("state store: cannot save alert state and notifications (\(keys)): \(error)")
            }
        }
        await retryFailedSinks()
        var delivered: [String] = []
        for (event, routing) in routed {
            noteRouted(event, routing)
            logger.debug("notification", metadata: ["key": "\(event.key)", "status": "\(event.status)", "event_id": "\(event.id)"])
            let complete = await fanOut(event, to: sinks, routing: routing)
            if complete { delivered.append(event.id) }
            hooks?.delivered(event, at: clock.now(), complete: complete)
        }
        await clear(delivered)
        await deliverReleased()
        // Held back by a silence: the states above are committed, the events reach no sink and are not pending.
        if !publication.silenced.isEmpty {
            for held in publication.silenced {
                logger.info("notification held back by a silence", metadata: [
                    "key": "\(held.event.key)", "status": "\(held.event.status)", "silence": "\(held.silenceID)",
                ])
            }
            hooks?.heldBack(publication.silenced)
        }
        if !publication.endedSilences.isEmpty { await hooks?.silencesEnded(publication.endedSilences, at: clock.now()) }
        scheduleSinkRetry()
        return nextSinkRetry
    }

    /// Tries the sinks that failed again (the engine loop's timer, at `nextSinkRetry`); returns the next time.
    package func retrySinks() async -> Date? {
        await retryFailedSinks()
        await wakeRouter()
        scheduleSinkRetry()
        return nextSinkRetry
    }

    /// The next time the publisher wants `retrySinks`: a failed sink's retry or the router's next window check.
    func scheduleSinkRetry() {
        let now = clock.now()
        let retry = retries.isEmpty ? nil : now.addingTimeInterval(retries.retryDelay)
        nextSinkRetry = [retry, router?.nextWake(after: now)].compactMap { $0 }.min()
    }

    /// Delivers what a previous run committed but may not have handed to every sink.
    package func redeliverPending() async {
        guard let store, ha?.epoch != nil || ha == nil else { return }
        let pending: [PendingEvent]
        do { pending = try await store.pendingEvents() } catch {
            logger.error("state store: cannot read pending notifications: \(error)")
            return
        }
        guard !pending.isEmpty else { return }
        let decoder = AlertEvent.makeDecoder()
        var delivered: [String] = []
        var events: [AlertEvent] = []
        for row in pending {
            if let event = try? decoder.decode(AlertEvent.self, from: row.data) { events.append(event) } else {
                logger.warning("state store: dropping an undecodable pending notification", metadata: ["event_id": "\(row.id)"])
                delivered.append(row.id)
            }
        }
        if !events.isEmpty { logger.notice("delivering \(events.count) notification(s) left pending by the previous run") }
        for original in events {
            let (event, routing) = route(original)
            noteRouted(event, routing)
            if await fanOut(event, to: sinks, routing: routing) { delivered.append(event.id) }
        }
        await clear(delivered)
        await deliverReleased()
        scheduleSinkRetry()
    }

    /// Hands `event` to every sink; true when all took it and none still has it queued. Failures are queued
    /// for a retry of that sink; a queued sink's later report ends the wait (`follow`).
    func fanOut(_ event: AlertEvent, to sinks: [any AlertSink], routing: RoutingDecision?) async -> Bool {
        var complete = true
        for sink in sinks {
            do {
                if try await hand(event, to: sink, routing: routing) == .queued { complete = false }
            } catch {
                complete = false
                logger.error("notification not delivered: \(error)", metadata: ["sink": "\(sink.name)", "key": "\(event.key)", "event_id": "\(event.id)"])
                if let targets = routing?.sinks, sink is any RoutedAlertSink { routedTargets[event.id] = targets }
                if let dropped = retries.add(event, sink: sink.name) {
                    logger.error("giving up on a notification after repeated sink failures", metadata: ["event_id": "\(dropped.id)"])
                }
            }
        }
        return complete
    }

    /// One sink's share of a delivery: a queued sink's `submit` returns at once (with no suspension before
    /// the caller records what it queued, so its writer's report cannot arrive first); any other sink's
    /// `deliver` has written or durably queued the event when it returns.
    private func hand(_ event: AlertEvent, to sink: any AlertSink, routing: RoutingDecision?) async throws -> SinkReceipt {
        if let routed = sink as? any RoutedAlertSink, let routing {
            let queued = try await routed.deliver(event, toTargets: routing.sinks)
            if routing.sinks != nil { hooks?.sentByRoute(event, to: queued) }
            return .written
        }
        if let queued = sink as? any QueuedAlertSink {
            let receipt = try queued.submit(event)
            if receipt == .queued { unwritten[event.id, default: []].insert(sink.name) }
            return receipt
        }
        try await sink.deliver(event)
        return .written
    }

    /// Follows the queued sinks' reports until the stream ends or the task is cancelled: a written event
    /// that no sink waits for any more is cleared; a first failed write is logged (the sink's writer retries).
    package func follow(_ reports: AsyncStream<SinkWriteReport>) async {
        for await report in reports {
            switch report {
            case .written(let sink, let eventID):
                guard var waiting = unwritten[eventID] else { continue }
                waiting.remove(sink)
                if waiting.isEmpty {
                    unwritten[eventID] = nil
                    if retries.isLastFor(eventID) { await clear([eventID]) }
                } else {
                    unwritten[eventID] = waiting
                }
            case .failed(let sink, let eventID, let reason):
                logger.error("notification not delivered: \(sink): \(reason)", metadata: ["sink": "\(sink)", "event_id": "\(eventID)"])
            }
        }
    }

    private func retryFailedSinks() async {
        guard !retries.isEmpty else { return }
        var touched: Set<String> = []
        for entry in retries.takeAll() {
            touched.insert(entry.event.id)
            // A sink removed by a reload has nothing left to retry.
            guard let sink = sinks.first(where: { $0.name == entry.sink }) else { continue }
            do {
                let routing = routedTargets[entry.event.id].map { RoutingDecision(sinks: $0) }
                _ = try await hand(entry.event, to: sink, routing: routing)
                logger.notice("notification delivered on retry", metadata: ["sink": "\(sink.name)", "event_id": "\(entry.event.id)"])
            } catch {
                if let dropped = retries.add(entry.event, sink: entry.sink, attempts: entry.attempts + 1) {
                    logger.error("giving up on a notification after repeated sink failures: \(error)", metadata: ["event_id": "\(dropped.id)"])
                }
            }
        }
        for id in touched where retries.isLastFor(id) { routedTargets[id] = nil }
        await clear(touched.filter { retries.isLastFor($0) && unwritten[$0] == nil }.sorted())
    }

    private func clear(_ ids: [String]) async {
        guard let store, !ids.isEmpty else { return }
        do { try await store.clearPending(eventIDs: ids) } catch {
            logger.error("state store: cannot clear delivered notifications: \(error)")
        }
    }
}

extension Array where Element: Hashable {
    package func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
