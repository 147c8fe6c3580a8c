import Foundation
import MarketAlertCore
import MarketAlertKit

/// A notification for an ntfy topic (`format: ntfy`), as ntfy's publishing docs describe it: the message
/// text is the POST body, and `Title`, `Priority` (1–5), `Tags` (comma-separated; a tag that is an emoji
/// short code becomes an emoji before the title) and `Click` (opened when the notification is tapped) are
/// headers. ntfy decodes RFC 2047 encoded-words in headers, so a non-ASCII title is sent as one.
///
/// The outbox stores this as JSON (rendered once, when queued); `WebhookSender` turns it into the request.
/// The bearer token is not part of it: it is added at send time and never stored.
package struct NtfyMessage: Codable, Sendable, Equatable {
    package var title: String
    package var priority: Int
    package var tags: [String]
    package var click: String?
    package var message: String

    /// ntfy's limit on a message body is 4,096 bytes by default; longer texts become attachments.
    package static let messageLimit = 4000

    package init(_ event: AlertEvent, click: URL?) {
        title = NotificationTitle.text(for: event)
        priority = Self.priority(for: event)
        tags = [Self.emojiTag(for: event), event.kind.rawValue, event.severity.rawValue]
        self.click = click?.absoluteString
        message = Self.utf8Prefix(WebhookBody.text(for: event), maxBytes: Self.messageLimit)
    }

    /// critical 5, warning 4, notice 3, info 2; a resolved notification 2 whatever its level was.
    package static func priority(for event: AlertEvent) -> Int {
        if event.status == "resolved" { return 2 }
        switch event.severity {
        case .critical: return 5
        case .warning: return 4
        case .notice: return 3
        case .info: return 2
        }
    }

    /// 🚨 for a firing alert, ✅ for a resolved one, 📰 for a digest, 🔔 for any other notification.
    package static func emojiTag(for event: AlertEvent) -> String {
        if event.status == "resolved" { return "white_check_mark" }
        if event.kind == .digest { return "newspaper" }
        return event.status == "firing" ? "rotating_light" : "bell"
    }

    /// The request headers, in order (without `Authorization`).
    package var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("Title", MIMEEncodedWord.encodeIfNeeded(title)),
            ("Priority", String(priority)),
            ("Tags", tags.joined(separator: ",")),
        ]
        if let click { headers.append(("Click", click)) }
        return headers
    }

    package func stored() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    package static func decode(_ data: Data) throws -> NtfyMessage { try JSONDecoder().decode(NtfyMessage.self, from: data) }

    private static func utf8Prefix(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = String(character).utf8.count
            if used + size > maxBytes - 3 { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }
}
