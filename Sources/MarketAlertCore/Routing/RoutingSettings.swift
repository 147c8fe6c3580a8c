import Foundation

/// v3 `routes`, `time_intervals` and `inhibit`. Without routes every durable sink takes the kinds it lists
/// (version 2); stdout and the journal always get everything.
package struct RoutingSettings: Sendable, Equatable {
    package var routes: [Route] = []
    package var timeIntervals: [String: TimeWindow] = [:]
    package var inhibit: [InhibitRule] = []

    package init(routes: [Route] = [], timeIntervals: [String: TimeWindow] = [:], inhibit: [InhibitRule] = []) {
        self.routes = routes
        self.timeIntervals = timeIntervals
        self.inhibit = inhibit
    }

    /// Nothing configured: version-2 behaviour.
    package var isEmpty: Bool { routes.isEmpty && inhibit.isEmpty }
}

/// One route: notifications that match go to `sinks` (each still filtered by its own `kinds`).
package struct Route: Sendable, Equatable {
    package var match: NotificationMatch
    package var sinks: [String]
    /// Later matching routes are tried too.
    package var `continue` = false
    /// Not sent while any of these is active (and not sent later, unless `sendAfterMute`).
    package var muteTimeIntervals: [String] = []
    /// Sent only while one of these is active (empty: always).
    package var activeTimeIntervals: [String] = []
    /// A firing alert muted by a window and still firing when the window ends is sent once then.
    package var sendAfterMute = false

    package init(
        match: NotificationMatch = NotificationMatch(), sinks: [String], continue: Bool = false,
        muteTimeIntervals: [String] = [], activeTimeIntervals: [String] = [], sendAfterMute: Bool = false
    ) {
        self.match = match
        self.sinks = sinks
        self.continue = `continue`
        self.muteTimeIntervals = muteTimeIntervals
        self.activeTimeIntervals = activeTimeIntervals
        self.sendAfterMute = sendAfterMute
    }
}

/// While a notification matching `source` is firing, notifications matching `target` that share the `equal`
/// fields are not sent to routed sinks.
package struct InhibitRule: Sendable, Equatable {
    package var source: NotificationMatch
    package var target: NotificationMatch
    package var equal: [InhibitField]

    package init(source: NotificationMatch, target: NotificationMatch, equal: [InhibitField] = []) {
        self.source = source
        self.target = target
        self.equal = equal
    }
}

/// The fields an inhibit rule can require equal between source and target.
package enum InhibitField: String, Sendable, CaseIterable, Codable {
    case kind, rule, asset, exchange, severity, status, key

    /// True when `source` and `target` agree on this field; `exchange` agrees when the source's exchange is
    /// either side of the target's premium (or the other way round).
    package func agrees(_ source: AlertEvent, _ target: AlertEvent) -> Bool {
        switch self {
        case .kind: return source.kind == target.kind
        case .severity: return source.severity == target.severity
        case .status: return source.status == target.status
        case .key: return source.key == target.key
        case .rule: return NotificationFields(source).rule == NotificationFields(target).rule
        case .asset: return NotificationFields(source).asset == NotificationFields(target).asset
        case .exchange:
            let a = NotificationFields(source).exchanges
            let b = NotificationFields(target).exchanges
            return a.contains { b.contains($0) }
        }
    }
}
