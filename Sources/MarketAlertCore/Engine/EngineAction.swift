import Foundation

/// What the engine asks its shell to do after an event or a deadline.
package enum EngineAction: Sendable, Equatable {
    /// Commit these states with these notifications, then deliver the notifications (`AlertPublisher`).
    case publish(Publication)
    /// The one-line status changed (systemd `STATUS=`).
    case status(String)
    /// Something worth a line in the daemon's log.
    case log(EngineLogLine)
}

/// A unit of durable change: alert states written and deleted together with the notifications they
/// caused, so a crash can neither repeat a decision nor lose its notification.
package struct Publication: Sendable, Equatable {
    package var states: [StateRecord] = []
    package var deletedKeys: [String] = []
    package var events: [AlertEvent] = []
    /// Notifications a silence held back: their states are committed with the rest; they reach no sink.
    package var silenced: [SilencedEvent] = []
    /// Silences whose end was handled (the publisher records it, so a restart does not handle it again).
    package var endedSilences: [String] = []
    /// v2 premium history: closed slots to write, and the instant before which stored samples are deleted
    /// (`history.retention`), in the same transaction as the rest.
    package var history: [HistorySample] = []
    package var pruneHistoryBefore: Date?

    package init(states: [StateRecord] = [], deletedKeys: [String] = [], events: [AlertEvent] = []) {
        self.states = states
        self.deletedKeys = deletedKeys
        self.events = events
    }

    package var isEmpty: Bool { states.isEmpty && deletedKeys.isEmpty && events.isEmpty && silenced.isEmpty && endedSilences.isEmpty
            && history.isEmpty && pruneHistoryBefore == nil }

    package mutating func append(_ other: Publication) {
        states += other.states
        deletedKeys += other.deletedKeys
        events += other.events
        silenced += other.silenced
        endedSilences += other.endedSilences
        history += other.history
        pruneHistoryBefore = [pruneHistoryBefore, other.pruneHistoryBefore].compactMap { $0 }.max()
    }
}

/// One persisted alert state: the JSON of a state machine under its key.
package struct StateRecord: Sendable, Equatable {
    package var key: String
    /// `premium`, `source`, `fx`, `ipo`.
    package var kind: String
    package var data: Data

    package init(key: String, kind: String, data: Data) {
        self.key = key
        self.kind = kind
        self.data = data
    }

    /// Encodes a state machine (all of ours encode; a failure would be a programming error, reported as an
    /// empty object rather than a crash).
    package static func encode(_ state: some Encodable, key: String, kind: String) -> StateRecord {
        let data = (try? StateRecord.encoder.encode(state)) ?? Data("{}".utf8)
        return StateRecord(key: key, kind: kind, data: data)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}

package struct EngineLogLine: Sendable, Equatable {
    package enum Level: String, Sendable { case debug, info, notice, warning, error }

    package var level: Level
    package var message: String
    /// Source, key or provider the line is about.
    package var subject: String?

    package init(_ level: Level, _ message: String, subject: String? = nil) {
        self.level = level
        self.message = message
        self.subject = subject
    }
}
