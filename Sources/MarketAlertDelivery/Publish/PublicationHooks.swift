import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// What else happens on the one publish path, besides commit and fan-out: metrics count notifications, the
/// silence store records which silence ends were handled.
package protocol PublicationHooks: Sendable {
    /// A notification went to the sinks at `at` (`complete`: every sink took it).
    func delivered(_ event: AlertEvent, at: Date, complete: Bool)
    /// Notifications a silence held back (committed, delivered nowhere).
    func heldBack(_ events: [SilencedEvent])
    /// The engine handled these silences' ends; called after the publication's commit and fan-out.
    func silencesEnded(_ ids: [String], at: Date) async
    /// v3: a routing decision (why a route sent nothing: inhibited, muted).
    func routed(_ event: AlertEvent, decision: RoutingDecision)
    /// v3: the targets a route's notification was queued for (those whose own `kinds` took it).
    func sentByRoute(_ event: AlertEvent, to targets: [String])
}

extension PublicationHooks {
    package func routed(_ event: AlertEvent, decision: RoutingDecision) {}
    package func sentByRoute(_ event: AlertEvent, to targets: [String]) {}
}
