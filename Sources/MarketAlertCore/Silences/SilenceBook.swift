import Foundation

/// The engine's part of silences: the silences themselves, which ends it has handled, and a record per
/// firing key (its last notification, since when it fires, when it last reached the sinks).
package struct SilenceBook: Sendable {
    /// By creation time, then id (the first matching active silence is named as the one holding a key).
    package internal(set) var silences: [Silence] = []
    /// Silences whose end was handled (persisted as `end_handled_at`; kept here too so a snapshot read before
    /// that write landed cannot handle it twice).
    var handledEnds: Set<String> = []
    package internal(set) var firing: [String: FiringRecord] = [:]

    package init() {}

    mutating func replace(_ silences: [Silence]) {
        self.silences = silences.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        let ids = Set(silences.map(\.id))
        handledEnds = handledEnds.intersection(ids).union(silences.filter { $0.endHandledAt != nil }.map(\.id))
    }

    /// Silences past their end whose end is not handled yet, in end order.
    func endsDue(at now: Date) -> [Silence] {
        silences.filter { $0.endsAt <= now && !handledEnds.contains($0.id) }.sorted { ($0.endsAt, $0.id) < ($1.endsAt, $1.id) }
    }

    /// The next end still to handle after `now`.
    func nextEnd(after now: Date) -> Date? {
        silences.lazy.filter { $0.endsAt > now && !self.handledEnds.contains($0.id) }.map(\.endsAt).min()
    }
}
