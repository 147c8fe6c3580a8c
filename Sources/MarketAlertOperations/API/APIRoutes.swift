import Foundation
import MarketAlertCore
import MarketAlertKit

/// v3: the routes, time intervals and inhibit rules in `/api/v1/status` (`routes`, `time_intervals`,
/// `inhibit`; absent without `routes:`/`inhibit:`) and on the status page, with whether each route's windows
/// mute it now and which intervals are active now.
extension APIDocuments {
    package struct Routing: Encodable {
        package var routes: [RouteRow]
        package var timeIntervals: [TimeIntervalRow]
        package var inhibit: [InhibitRow]

        package enum CodingKeys: String, CodingKey { case routes, timeIntervals = "time_intervals", inhibit }

        package init(_ settings: RoutingSettings, now: Date) {
            let active = Set(settings.timeIntervals.values.filter { $0.isActive(at: now) }.map(\.name))
            routes = settings.routes.map { RouteRow($0, active: active) }
            timeIntervals = settings.timeIntervals.values.sorted { $0.name < $1.name }.map {
                TimeIntervalRow(name: $0.name, location: $0.location.identifier, activeNow: active.contains($0.name))
            }
            inhibit = settings.inhibit.map { InhibitRow(source: Match($0.source), target: Match($0.target), equal: $0.equal.map(\.rawValue)) }
        }
    }

    package struct RouteRow: Encodable {
        package var match: Match
        package var sinks: [String]
        package var `continue`: Bool
        package var muteTimeIntervals: [String]
        package var activeTimeIntervals: [String]
        package var sendAfterMute: Bool
        /// Whether the route's windows keep it from sending right now.
        package var mutedNow: Bool

        package enum CodingKeys: String, CodingKey {
            case match, sinks, `continue`, muteTimeIntervals = "mute_time_intervals", activeTimeIntervals = "active_time_intervals"
            case sendAfterMute = "send_after_mute", mutedNow = "muted_now"
        }

        init(_ route: Route, active: Set<String>) {
            match = Match(route.match)
            sinks = route.sinks
            self.continue = route.continue
            muteTimeIntervals = route.muteTimeIntervals
            activeTimeIntervals = route.activeTimeIntervals
            sendAfterMute = route.sendAfterMute
            mutedNow = route.muteTimeIntervals.contains(where: active.contains)
                || (!route.activeTimeIntervals.isEmpty && !route.activeTimeIntervals.contains(where: active.contains))
        }
    }

    /// A match's given fields only (an empty object matches everything).
    package struct Match: Encodable {
        package var fields: [(String, String)]

        init(_ match: NotificationMatch) {
            let all: [(String, String?)] = [
                ("kind", match.kind?.rawValue), ("rule", match.rule), ("asset", match.asset), ("exchange", match.exchange),
                ("severity", match.severity?.rawValue), ("status", match.status), ("key", match.key),
            ]
            fields = all.compactMap { name, value in value.map { (name, $0) } }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            for (name, value) in fields { try container.encode(value, forKey: AnyKey(name)) }
        }

        /// `kind=premium, rule=kimchi`, or `everything`.
        package var text: String { fields.isEmpty ? "everything" : fields.map { "\($0.0)=\($0.1)" }.joined(separator: ", ") }
    }

    package struct TimeIntervalRow: Encodable {
        package var name: String
        package var location: String
        package var activeNow: Bool

        package enum CodingKeys: String, CodingKey { case name, location, activeNow = "active_now" }
    }

    package struct InhibitRow: Encodable {
        package var source: Match
        package var target: Match
        package var equal: [String]
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
