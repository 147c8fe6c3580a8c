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
    /// v3: a routing decision (the targets a route sent to, or why it sent nothing).
    func routed(_ event: AlertEvent, decision: RoutingDecision)
}

extension PublicationHooks {
    package func routed(_ event: AlertEvent, decision: RoutingDecision) {}
}
