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

    /// The event as stdout and the journal get it (with `inhibited_by`) and the routing decision for the
    /// durable targets (nil: no routing configured).
    func route(_ event: AlertEvent) -> (AlertEvent, RoutingDecision?) {
        guard router != nil else { return (event, nil) }
        let now = publicationClock.now()
        guard let outcome = router?.route(event, at: now) else { return (event, nil) }
        releasedByRouter += outcome.released
        var routed = event
        routed.inhibitedBy = outcome.decision.inhibitedBy
        report(event, outcome.decision)
        if let sources = outcome.decision.inhibitedBy {
            logger.debug("notification inhibited", metadata: ["key": "\(event.key)", "inhibited_by": "\(sources.joined(separator: ","))"])
        } else if outcome.decision.mutedByTime > 0 {
            logger.debug("notification muted by a time interval", metadata: ["key": "\(event.key)", "event_id": "\(event.id)"])
        }
        return (routed, outcome.decision)
    }

    /// Sends what the router holds that is due: muted alerts whose window ended and are still firing.
    func wakeRouter() async {
        guard router != nil, let due = router?.wake(at: publicationClock.now()) else { return }
        releasedByRouter += due
        await deliverReleased()
    }

    /// Delivers the notifications the router let go, to the durable targets only (stdout and the journal
    /// had them when they were published).
    func deliverReleased() async {
        guard !releasedByRouter.isEmpty else { return }
        let items = releasedByRouter
        releasedByRouter = []
        let durable = sinksForRouting
        for item in items {
            logger.info("sending a notification held back by a route", metadata: ["key": "\(item.event.key)", "event_id": "\(item.event.id)"])
            let decision = RoutingDecision(sinks: item.sinks)
            report(item.event, decision)
            _ = await fanOut(item.event, to: durable, routing: decision)
        }
    }

    private func report(_ event: AlertEvent, _ decision: RoutingDecision) {
        hooksForRouting?.routed(event, decision: decision)
    }
}
