import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// The POST body of a notification in each webhook format. Rendered once, when the notification is queued,
/// and stored in the outbox, so every retry (and a retry after a restart) sends the same bytes.
///
/// - `json`: the `AlertEvent` itself (`shared/spec/alert-event.schema.json`).
/// - `slack`: `{"text": …}` for incoming webhooks; `&`, `<` and `>` escaped as Slack asks.
/// - `discord`: `{"content": …, "allowed_mentions": {"parse": []}}`, at most 2,000 characters; mentions
///   such as `@everyone` in a summary never ping anyone.
/// - `telegram`: a Bot API `sendMessage` body `{"chat_id": …, "text": …}` (plain text, at most 4,096).
/// - `ntfy`: an `NtfyMessage` (text plus the Title, Priority, Tags and Click headers), sent as ntfy asks.
package enum WebhookBody {
    package enum RenderError: Error, Equatable, CustomStringConvertible {
        case missingChatID
        case unencodable(String)

        package var description: String {
            switch self {
            case .missingChatID: "format telegram needs chat_id"
            case .unencodable(let reason): "cannot encode the event: \(reason)"
            }
        }
    }

    package static let discordLimit = 2000
    package static let telegramLimit = 4096
    /// Before escaping; Slack rejects texts over 40,000 characters and escaping can grow a text.
    package static let slackLimit = 8000

    package static func render(_ event: AlertEvent, for target: WebhookTarget) throws(RenderError) -> Data {
        try render(event, format: target.format, chatID: target.chatID, click: target.clickURL)
    }

    /// - Parameter click: `http.external_url`, ntfy's Click header.
    package static func render(_ event: AlertEvent, format: WebhookFormat, chatID: String?, click: URL? = nil) throws(RenderError) -> Data {
        do {
            switch format {
            case .json:
                return try event.jsonData()
            case .slack:
                return try encode(SlackMessage(text: slackEscaped(truncated(text(for: event), limit: slackLimit))))
            case .discord:
                return try encode(DiscordMessage(content: truncated(text(for: event), limit: discordLimit)))
            case .telegram:
                guard let chatID, !chatID.isEmpty else { throw RenderError.missingChatID }
                return try encode(TelegramMessage(chatID: chatID, text: truncated(text(for: event), limit: telegramLimit)))
            case .ntfy:
                return try NtfyMessage(event, click: click).stored()
            }
        } catch let error as RenderError {
            throw error
        } catch {
            throw .unencodable(String(describing: error))
        }
    }

    /// The human text of a chat message: severity, key and status, the summary, and the time in UTC.
    package static func text(for event: AlertEvent) -> String {
        if let digest = event.digest {  // compact: one line per rule and asset, one per open IPO window
            return ([event.summary] + DigestEvents.lines(digest) + [Timestamp.rfc3339(event.at)]).joined(separator: "\n")
        }
        return "[\(event.severity.rawValue.uppercased())] \(event.key) \(event.status)\n\(event.summary)\n\(Timestamp.rfc3339(event.at))"
    }

    /// At most `limit` UTF-16 units (how Discord and Telegram count), cut at a character boundary with "…".
    package static func truncated(_ text: String, limit: Int) -> String {
        guard text.utf16.count > limit else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf16.count
            if used + size > limit - 1 { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }

    /// Slack's escaping over Unicode scalars (`MarkupEscaping`): `replacingOccurrences` compares `Character`s.
    static func slackEscaped(_ text: String) -> String { MarkupEscaping.slack(text) }

    private static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    private struct SlackMessage: Encodable {
        var text: String
    }

    private struct DiscordMessage: Encodable {
        struct AllowedMentions: Encodable {
            var parse: [String] = []
        }

        var content: String
        var allowedMentions = AllowedMentions()

        enum CodingKeys: String, CodingKey { case content, allowedMentions = "allowed_mentions" }
    }

    private struct TelegramMessage: Encodable {
        var chatID: String
        var text: String

        enum CodingKeys: String, CodingKey { case chatID = "chat_id", text }
    }
}
