import Foundation
import Logging
import MarketAlertCore

/// v3 routing on the one publish path: which durable targets get each notification (routes and their time
/// windows), which are inhibited (stdout and the journal still get them, with `inhibited_by`), and the
/// notifications sent later — when a mute window ends (`send_after_mute`) or an inhibitor resolves. The
/// router is a pure machine (`NotificationRouter`); the engine loop's timer calls `retrySinks` at its wake.
extension AlertPublisher {
    /// Takes the config's routing (at start and on reload). Empty settings: version-2 behaviour.
    package func configureRouting(_ settings: RoutingSettings) {
        if settings.isEmpty {
            router = nil
        } else if router == nil {
            router = NotificationRouter(settings: settings)
        } else {
            router?.replace(settings)
        }
        scheduleSinkRetry()
    }

    /// Routes a publication's events; when that changes what the router holds, its memory joins the
    /// publication's states (committed together). Returns each event as stdout and the journal get it (with
    /// `inhibited_by`) and its routing decision (nil: no routing configured).
    func route(_ events: [AlertEvent], recordingIn publication: inout Publication) -> [(AlertEvent, RoutingDecision?)] {
        guard let before = router?.memory else { return events.map { ($0, nil) } }
        let routed = events.map { route($0) }
        if let after = router?.memory, after != before {
            do { publication.states.append(try NotificationRouter.record(after)) } catch {
                logger.error("state store: cannot encode what the routes hold: \(error)")
            }
        }
        return routed
    }

    /// The event as stdout and the journal get it (with `inhibited_by`) and the routing decision for the
    /// durable targets (nil: no routing configured). Decides only; `noteRouted` reports it when it is sent.
    func route(_ event: AlertEvent) -> (AlertEvent, RoutingDecision?) {
        guard router != nil else { return (event, nil) }
        let now = publicationClock.now()
        guard let outcome = router?.route(event, at: now) else { return (event, nil) }
        var routed = event
        routed.inhibitedBy = outcome.decision.inhibitedBy
        return (routed, outcome.decision)
    }

    /// Counts and logs a routing decision as its notification goes out.
    func noteRouted(_ event: AlertEvent, _ decision: RoutingDecision?) {
        guard let decision else { return }
        report(event, decision)
        if let sources = decision.inhibitedBy {
            logger.debug("notification inhibited", metadata: ["key": "\(event.key)", "inhibited_by": "\(sources.joined(separator: ","))"])
        } else if decision.mutedByTime > 0 {
            logger.debug("notification muted by a time interval", metadata: ["key": "\(event.key)", "event_id": "\(event.id)"])
        }
    }

    /// Sends what the router holds that is due: muted alerts whose window ended and are still firing.
    func wakeRouter() async {
        guard let before = router?.memory, let due = router?.wake(at: publicationClock.now()) else { return }
        // Saved after the sends (`deliverReleased`): a crash in between sends them again rather than never.
        if !due.isEmpty {
            await deliverReleased()
        } else if let after = router?.memory, after != before {
            await saveRoutingMemory(after)
        }
    }

    /// Commits what the router holds on its own (a wake that sent or dropped held notifications).
    private func saveRoutingMemory(_ memory: NotificationRouter.Memory) async {
        guard let store else { return }
        let record: StateRecord
        do { record = try NotificationRouter.record(memory) } catch {
            logger.error("state store: cannot encode what the routes hold: \(error)")
            return
        }
        let publication = Publication(states: [record])
        if let ha {
            _ = await commitLeading(publication, ha: ha)
        } else {
            do { try await store.commit(publication, at: publicationClock.now()) } catch {
                logger.error("state store: cannot save what the routes hold: \(error)")
            }
        }
    }

    /// Takes back what the routes held when the last run stopped (at start, and when this instance begins to
    /// lead): inhibitors still firing, targets they hold back, muted alerts to send when their window ends.
    package func restoreRouting() async {
        guard router != nil, let store else { return }
        do {
            guard let data = try await store.loadStates(kind: NotificationRouter.memoryKind)[NotificationRouter.memoryKey] else { return }
            router?.restore(try NotificationRouter.memory(from: data))
            if let memory = router?.memory, !memory.isEmpty {
                logger.info("routes: holding what the previous run held", metadata: [
                    "inhibitors": "\(memory.inhibitors.count)", "inhibited": "\(memory.heldByInhibition.count)", "muted": "\(memory.heldByMute.count)",
                    "released_unsent": "\(memory.releasing.count)",
                ])
            }
        } catch {
            logger.warning("state store: cannot read what the routes held; starting with nothing held: \(error)")
        }
        // What the previous run released and may not have sent (it stopped between the commit and the sends).
        await deliverReleased()
        scheduleSinkRetry()
    }

    /// Delivers the notifications the router let go, to the durable targets only (stdout and the journal
    /// had them when they were published). They were committed as released with the publication (or the
    /// restored memory) that let them go; once handed to the targets (the outbox), the router forgets them
    /// and that is committed: a crash in between sends them again at the next start, never not at all.
    func deliverReleased() async {
        guard !deliveringReleased else { return }
        deliveringReleased = true
        defer { deliveringReleased = false }
        while let items = router?.releasing, !items.isEmpty {
            let durable = sinksForRouting
            for item in items {
                logger.info("sending a notification held back by a route", metadata: ["key": "\(item.event.key)", "event_id": "\(item.event.id)"])
                let decision = RoutingDecision(sinks: item.sinks)
                report(item.event, decision)
                _ = await fanOut(item.event, to: durable, routing: decision)
            }
            router?.releasingSent(items.count)
            if let memory = router?.memory { await saveRoutingMemory(memory) }
        }
    }

    private func report(_ event: AlertEvent, _ decision: RoutingDecision) {
        hooksForRouting?.routed(event, decision: decision)
    }
}
