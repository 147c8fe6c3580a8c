import Foundation

/// Decides, for each notification, which durable sinks (webhooks, email) get it: routes, their time windows
/// and inhibition. A pure state machine: `route` and `wake` take `now` and return what to send; the shell owns
/// the clock and calls `wake` at `nextWake`. stdout and the journal are not routed: they get everything, with
/// `inhibited_by` set on an inhibited notification.
///
/// State: the firing notifications that can inhibit, the firing targets they hold back (sent once when the
/// last inhibitor resolves) and the firing notifications a `send_after_mute` route muted (sent once when the
/// window ends, if still firing). The publisher keeps it in the store with the publication that changed it
/// (`memory`, `restore`), so a restart or an HA takeover goes on inhibiting and holding as before.
/// What `route` and `wake` let go stays in `releasing` until the shell says it is sent (`releasingSent`):
/// committed with the publication that released it, so a crash before the sends has them sent at start.
package struct NotificationRouter: Sendable {
    package private(set) var settings: RoutingSettings
    var inhibitors: [String: AlertEvent] = [:]
    var heldByInhibition: [String: AlertEvent] = [:]
    var heldByMute: [MutedKey: AlertEvent] = [:]
    /// Released (by an inhibitor's resolution or a mute window's end) and not yet reported sent.
    package internal(set) var releasing: [RoutedNotification] = []

    struct MutedKey: Hashable, Sendable {
        var key: String
        var route: Int
    }

    package init(settings: RoutingSettings) {
        self.settings = settings
    }

    /// A reload: new routes and windows; what is held stays held (by key) when the new settings still route it.
    package mutating func replace(_ settings: RoutingSettings) {
        self.settings = settings
        heldByMute = heldByMute.filter { settings.routes.indices.contains($0.key.route) && settings.routes[$0.key.route].sendAfterMute }
    }

    /// When `wake` has something to check (a window can only end on a minute boundary).
    package func nextWake(after now: Date) -> Date? {
        heldByMute.isEmpty ? nil : TimeWindow.nextMinute(after: now)
    }

    /// Routes one notification. Also returns notifications released by it (an inhibitor that resolved).
    package mutating func route(_ event: AlertEvent, at now: Date) -> RoutingOutcome {
        var outcome = RoutingOutcome(decision: RoutingDecision(sinks: nil))
        let firing = event.status == AlertEvent.Status.firing
        let isInhibitor = settings.inhibit.contains { $0.source.matches(event) }
        if isInhibitor, firing { inhibitors[event.key] = event }
        if isInhibitor, !firing, inhibitors.removeValue(forKey: event.key) != nil {
            outcome.released = release(at: now)
            releasing += outcome.released
        }
        let sources = inhibitors(of: event)
        if !sources.isEmpty {
            outcome.decision = RoutingDecision(sinks: [], inhibitedBy: sources)
            outcome.decision.muted = 1
            if firing { heldByInhibition[event.key] = event } else { heldByInhibition[event.key] = nil }
            forgetMuted(event.key)
            return outcome
        }
        heldByInhibition[event.key] = nil
        guard !settings.routes.isEmpty else { return outcome }
        outcome.decision = deliver(event, at: now, holdingMuted: true)
        return outcome
    }

    /// Sends muted notifications whose window has ended and that are still firing, once.
    package mutating func wake(at now: Date) -> [RoutedNotification] {
        var sent: [RoutedNotification] = []
        for (muted, event) in heldByMute.sorted(by: { ($0.key.key, $0.key.route) < ($1.key.key, $1.key.route) }) {
            guard settings.routes.indices.contains(muted.route) else {
                heldByMute[muted] = nil
                continue
            }
            let route = settings.routes[muted.route]
            guard !isMuted(route, at: now) else { continue }
            heldByMute[muted] = nil
            if !inhibitors(of: event).isEmpty { continue }
            sent.append(RoutedNotification(event: event, sinks: route.sinks))
        }
        releasing += sent
        return sent
    }

    /// The shell has handed the first `count` of `releasing` to their sinks.
    package mutating func releasingSent(_ count: Int) {
        releasing.removeFirst(min(count, releasing.count))
    }

    // MARK: Decisions

    /// The sinks of the first matching route and of later ones while the matched ones say `continue`.
    private mutating func deliver(_ event: AlertEvent, at now: Date, holdingMuted: Bool) -> RoutingDecision {
        var sinks: [String] = []
        var muted = 0
        let firing = event.status == AlertEvent.Status.firing
        for (index, route) in settings.routes.enumerated() where route.match.matches(event) {
            let key = MutedKey(key: event.key, route: index)
            if isMuted(route, at: now) {
                muted += 1
                if holdingMuted, route.sendAfterMute, firing { heldByMute[key] = event } else { heldByMute[key] = nil }
            } else {
                heldByMute[key] = nil
                for sink in route.sinks where !sinks.contains(sink) { sinks.append(sink) }
            }
            if !route.continue { break }
        }
        var decision = RoutingDecision(sinks: sinks)
        decision.mutedByTime = muted
        return decision
    }

    private func isMuted(_ route: Route, at now: Date) -> Bool {
        let windows = settings.timeIntervals
        if route.muteTimeIntervals.contains(where: { windows[$0]?.isActive(at: now) == true }) { return true }
        if !route.activeTimeIntervals.isEmpty, !route.activeTimeIntervals.contains(where: { windows[$0]?.isActive(at: now) == true }) {
            return true
        }
        return false
    }

    /// The keys of the firing notifications that inhibit `event`, sorted (never `event` itself).
    private func inhibitors(of event: AlertEvent) -> [String] {
        var keys: Set<String> = []
        for rule in settings.inhibit where rule.target.matches(event) {
            for (key, source) in inhibitors where key != event.key && rule.source.matches(source) {
                if rule.equal.allSatisfy({ $0.agrees(source, event) }) { keys.insert(key) }
            }
        }
        return keys.sorted()
    }

    /// Targets no longer inhibited by anything, routed now (once).
    private mutating func release(at now: Date) -> [RoutedNotification] {
        var released: [RoutedNotification] = []
        for key in heldByInhibition.keys.sorted() {
            guard let event = heldByInhibition[key], inhibitors(of: event).isEmpty else { continue }
            heldByInhibition[key] = nil
            let decision = settings.routes.isEmpty ? RoutingDecision(sinks: nil) : deliver(event, at: now, holdingMuted: true)
            if decision.sinks?.isEmpty == true { continue }
            released.append(RoutedNotification(event: event, sinks: decision.sinks))
        }
        return released
    }

    private mutating func forgetMuted(_ key: String) {
        heldByMute = heldByMute.filter { $0.key.key != key }
    }
}

/// Which durable sinks get a notification. `sinks == nil`: no routes, every sink by its own `kinds`.
package struct RoutingDecision: Sendable, Equatable {
    package var sinks: [String]?
    /// The keys of the firing notifications that inhibit this one (nil: not inhibited).
    package var inhibitedBy: [String]?
    /// Inhibited: 1; else 0.
    package var muted = 0
    /// Matching routes that did not send because of a time window.
    package var mutedByTime = 0

    package init(sinks: [String]?, inhibitedBy: [String]? = nil) {
        self.sinks = sinks
        self.inhibitedBy = inhibitedBy
    }
}

/// The decision for the notification routed, plus earlier ones it released.
package struct RoutingOutcome: Sendable, Equatable {
    package var decision: RoutingDecision
    package var released: [RoutedNotification] = []
}

/// A notification sent later than its publication (after a mute window or an inhibition), to these sinks
/// (nil: every sink by its kinds).
package struct RoutedNotification: Sendable, Equatable, Codable {
    package var event: AlertEvent
    package var sinks: [String]?
}
