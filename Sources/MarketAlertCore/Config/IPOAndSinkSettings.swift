import Foundation

/// Subscription transitions a user can ask to be told about.
package enum IPONotification: String, Sendable, CaseIterable, Codable, Hashable {
    case announced, opens, last_day, closed, lottery_day
    /// v3: the lottery result was published (`中籤率` in `ipo.value`).
    case drawn
}

package struct IPOSourceSettings: Sendable, Equatable {
    package var name: String
    package var baseURL: URL
    package var pollInterval: Duration = .seconds(3600)
    package var timeZone: String = "Asia/Taipei"
    package var timeout: Duration = .seconds(10)

    package init(name: String, baseURL: URL) {
        self.name = name
        self.baseURL = baseURL
    }
}

package struct IPOSettings: Sendable, Equatable {
    package var sources: [IPOSourceSettings] = []
    package var notify: Set<IPONotification> = [.opens, .last_day]
    package var excludeNamePatterns: [String] = []
    /// v3 `ipo.value`: nil without the section (no market price is fetched, notifications as in v2).
    package var value: IPOValueSettings?

    package init() {}
}

package enum StdoutFormat: String, Sendable, CaseIterable {
    case json, text
}

package enum WebhookFormat: String, Sendable, CaseIterable, Codable {
    case json, slack, discord, telegram
    /// v3: the text rendering POSTed to an ntfy topic URL, with Title, Priority, Tags and Click headers.
    case ntfy
}

package struct WebhookSettings: Sendable, Equatable {
    package var name: String
    package var url: URL?
    package var urlEnv: String?
    package var format: WebhookFormat = .json
    package var secretEnv: String?
    package var timeout: Duration = .seconds(5)
    package var maxAge: Duration = .seconds(24 * 3600)
    package var kinds: Set<AlertKind> = Set(AlertKind.allCases)
    /// Telegram's `chat_id` (required for `format: telegram`).
    package var chatID: String?
    /// v3 `token_env` (ntfy): the secret sent as `Authorization: Bearer`.
    package var tokenEnv: String?

    package init(name: String) { self.name = name }
}

package struct SinkSettings: Sendable, Equatable {
    package var stdoutEnabled = true
    package var stdoutFormat: StdoutFormat = .json
    package var journalEnabled = false
    package var webhooks: [WebhookSettings] = []
    /// v3 `sinks.email[]` (`EmailSettings+Parsing.swift`).
    package var email: [EmailSettings] = []

    package init() {}
}

/// When a failing source raises a `source/<name>` alert.
package struct SourceAlertSettings: Sendable, Equatable {
    /// Fire after this many consecutive failed polls.
    package var afterFailures = 3
    /// Or when the last success is older than this.
    package var afterSilence: Duration = .seconds(5 * 60)
    package var severity: Severity = .warning

    package init() {}
}
