import Foundation

/// What the router holds, as the store keeps it: one state record (kind `routing`) committed with the
/// publication that changed it, read back at start and at an HA takeover.
extension NotificationRouter {
    /// The state record's kind and key.
    package static let memoryKind = "routing"
    package static let memoryKey = "routing/held"

    /// The router's held notifications, in a stable order (so an unchanged router compares equal).
    package struct Memory: Sendable, Equatable, Codable {
        package struct Muted: Sendable, Equatable, Codable {
            package var route: Int
            package var event: AlertEvent
        }

        package var inhibitors: [AlertEvent] = []
        package var heldByInhibition: [AlertEvent] = []
        package var heldByMute: [Muted] = []
        /// Released and not yet sent (absent from records written before it existed).
        package var releasing: [RoutedNotification] = []

        package init() {}

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            inhibitors = try container.decode([AlertEvent].self, forKey: .inhibitors)
            heldByInhibition = try container.decode([AlertEvent].self, forKey: .heldByInhibition)
            heldByMute = try container.decode([Muted].self, forKey: .heldByMute)
            releasing = try container.decodeIfPresent([RoutedNotification].self, forKey: .releasing) ?? []
        }

        package var isEmpty: Bool { inhibitors.isEmpty && heldByInhibition.isEmpty && heldByMute.isEmpty && releasing.isEmpty }
    }

    package var memory: Memory {
        var memory = Memory()
        memory.inhibitors = inhibitors.keys.sorted().compactMap { inhibitors[$0] }
        memory.heldByInhibition = heldByInhibition.keys.sorted().compactMap { heldByInhibition[$0] }
        memory.heldByMute = heldByMute.keys.sorted { ($0.key, $0.route) < ($1.key, $1.route) }.compactMap { muted in
            heldByMute[muted].map { Memory.Muted(route: muted.route, event: $0) }
        }
        memory.releasing = releasing
        return memory
    }

    /// Takes back what a previous run held, as far as today's settings still call for it: an inhibitor that
    /// no inhibit rule's source matches, a target no rule's target matches and a muted notification whose
    /// route is gone or no longer sends after its mute are dropped (the config changed in between). What was
    /// released and not reported sent is released again.
    package mutating func restore(_ memory: Memory) {
        releasing = memory.releasing
        let rules = settings.inhibit
        inhibitors = [:]
        for event in memory.inhibitors where event.status == AlertEvent.Status.firing && rules.contains(where: { $0.source.matches(event) }) {
            inhibitors[event.key] = event
        }
        heldByInhibition = [:]
        for event in memory.heldByInhibition where rules.contains(where: { $0.target.matches(event) }) {
            heldByInhibition[event.key] = event
        }
        heldByMute = [:]
        for muted in memory.heldByMute where settings.routes.indices.contains(muted.route) && settings.routes[muted.route].sendAfterMute {
            heldByMute[MutedKey(key: muted.event.key, route: muted.route)] = muted.event
        }
    }

    /// The state record of `memory` (JSON, the events as the schema has them).
    package static func record(_ memory: Memory) throws -> StateRecord {
        StateRecord(key: memoryKey, kind: memoryKind, data: try AlertEvent.makeEncoder().encode(memory))
    }

    /// The memory a state record holds.
    package static func memory(from data: Data) throws -> Memory {
        try AlertEvent.makeDecoder().decode(Memory.self, from: data)
    }
}
