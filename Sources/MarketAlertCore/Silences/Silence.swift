import Foundation

/// A silence, as Alertmanager has them: while active (`starts_at <= now < ends_at`), the notifications of
/// every key its matchers select are held back (the keys' state machines keep running). Persisted in the
/// state store; kept a week after it ends, for the record.
package struct Silence: Sendable, Equatable, Codable {
    package var id: String
    package var matchers: SilenceMatchers
    package var startsAt: Date
    package var endsAt: Date
    package var comment: String
    package var createdBy: String
    package var createdAt: Date
    /// When the engine handled the silence's end (the one notification of each key still firing); nil before.
    package var endHandledAt: Date?

    package init(
        id: String, matchers: SilenceMatchers, startsAt: Date, endsAt: Date, comment: String, createdBy: String, createdAt: Date,
        endHandledAt: Date? = nil
    ) {
        self.id = id
        self.matchers = matchers
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.comment = comment
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.endHandledAt = endHandledAt
    }

    package func isActive(at now: Date) -> Bool { startsAt <= now && now < endsAt }

    /// It was (or is) active for some time: an expired silence that never started has no end to handle.
    package var everActive: Bool { startsAt < endsAt }

    /// How long an ended silence is kept.
    package static let retention: TimeInterval = 7 * 86_400

    enum CodingKeys: String, CodingKey {
        case id, matchers, startsAt = "starts_at", endsAt = "ends_at", comment, createdBy = "created_by", createdAt = "created_at"
        case endHandledAt = "end_handled_at"
    }
}

/// What a silence selects: `key` is a glob where `*` matches any run of characters (also `/`); the others,
/// when given, must equal the notification's kind, premium rule, asset and severity. A key that is firing
/// keeps the severity it fired with for matching, so its `resolved` notification is held back with it.
package struct SilenceMatchers: Sendable, Equatable, Codable {
    package var key: String
    package var kind: AlertKind?
    package var rule: String?
    package var asset: String?
    package var severity: Severity?

    package init(key: String, kind: AlertKind? = nil, rule: String? = nil, asset: String? = nil, severity: Severity? = nil) {
        self.key = key
        self.kind = kind
        self.rule = rule
        self.asset = asset
        self.severity = severity
    }
}

/// The silences the engine knows, replaced whole after every change (API, start).
package struct SilenceSnapshot: Sendable, Equatable {
    package var silences: [Silence]
    /// Firing records restored from the store (only at start; nil afterwards).
    package var restoredFiring: [String: FiringRecord]?

    package init(silences: [Silence], restoredFiring: [String: FiringRecord]? = nil) {
        self.silences = silences
        self.restoredFiring = restoredFiring
    }
}

/// A notification held back by a silence: its state was committed, it is delivered nowhere.
package struct SilencedEvent: Sendable, Equatable {
    package var event: AlertEvent
    package var silenceID: String

    package init(event: AlertEvent, silenceID: String) {
        self.event = event
        self.silenceID = silenceID
    }
}

/// What the engine remembers of a firing key: its last notification (delivered or held back), since when it
/// fires and when a notification last reached the sinks. Persisted (kind `firing`) so a restart keeps
/// `/api/v1/alerts` and the severity a silence matches a later `resolved` with.
package struct FiringRecord: Sendable, Equatable, Codable {
    package var event: AlertEvent
    package var since: Date
    package var lastNotifiedAt: Date?

    package init(event: AlertEvent, since: Date, lastNotifiedAt: Date?) {
        self.event = event
        self.since = since
        self.lastNotifiedAt = lastNotifiedAt
    }

    /// The state-store kind and key of a record.
    package static let kind = "firing"
    package static func storeKey(_ key: String) -> String { "firing:\(key)" }
}
