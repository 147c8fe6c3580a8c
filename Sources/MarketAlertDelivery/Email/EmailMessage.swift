import Foundation
import MarketAlertCore

/// The RFC 5322 message of one notification: `From`, `To`, a `Subject` naming it (`NotificationTitle`,
/// RFC 2047 encoded when not ASCII), `Date` (the notification's time), a `Message-ID` made from the
/// notification id (`<id@from-domain>`: every retry of it, and a resend after a restart, carries the same
/// one), and a UTF-8 `text/plain` body in base64 holding the text rendering. Rendered once, when queued;
/// lines end in CRLF and are at most 78 characters, so the bytes go through any server unchanged.
package enum EmailMessage {
    package static func render(_ event: AlertEvent, from: EmailAddress, to: [EmailAddress]) -> Data {
        var lines: [String] = []
        lines.append("From: \(mailbox(from))")
        lines.append(folded("To", to.map(mailbox)))
        lines.append("Subject: " + MIMEEncodedWord.encodeIfNeeded(NotificationTitle.text(for: event), separator: "\r\n "))
        lines.append("Date: \(date(event.at))")
        lines.append("Message-ID: \(messageID(eventID: event.id, domain: from.domain))")
        lines.append("MIME-Version: 1.0")
        lines.append("Content-Type: text/plain; charset=utf-8")
        lines.append("Content-Transfer-Encoding: base64")
        lines.append("X-Marketalertd-Key: " + MIMEEncodedWord.encodeIfNeeded(event.key, separator: "\r\n "))
        lines.append("")
        let text = WebhookBody.text(for: event).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        lines.append(contentsOf: base64Lines(Data((text + "\r\n").utf8)))
        return Data((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// `<id@domain>`, with anything but letters, digits, `-` and `.` in the id replaced by `-`.
    package static func messageID(eventID: String, domain: String) -> String {
        let safe = String(eventID.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") ? $0 : "-" })
        return "<\(safe)@\(domain)>"
    }

    /// RFC 5322 §3.3 in UTC: `Tue, 10 Mar 2026 02:47:00 +0000`.
    package static func date(_ at: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: at)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = days[((c.weekday ?? 1) - 1 + 7) % 7]
        let month = months[((c.month ?? 1) - 1 + 12) % 12]
        return String(
            format: "%@, %02d %@ %04d %02d:%02d:%02d +0000", day, c.day ?? 1, month, c.year ?? 1970, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
    }

    /// `addr`, or `Name <addr>` with the name quoted or encoded.
    static func mailbox(_ address: EmailAddress) -> String {
        guard let name = address.displayName, !name.isEmpty else { return address.address }
        let ascii = name.unicodeScalars.allSatisfy { $0.value >= 32 && $0.value < 127 }
        let shown = ascii ? "\"\(name.replacingOccurrences(of: "\\", with: "\\\\"))\"" : MIMEEncodedWord.encodeIfNeeded(name, separator: " ")
        return "\(shown) <\(address.address)>"
    }

    /// `Name: a, b, c`, folded onto continuation lines before 78 characters.
    private static func folded(_ name: String, _ values: [String]) -> String {
        var result = "\(name): "
        var lineLength = result.count
        for (index, value) in values.enumerated() {
            let piece = index < values.count - 1 ? value + "," : value
            if index > 0 {
                if lineLength + 1 + piece.count > 78 {
                    result += "\r\n "
                    lineLength = 1
                } else {
                    result += " "
                    lineLength += 1
                }
            }
            result += piece
            lineLength += piece.count
        }
        return result
    }

    private static func base64Lines(_ data: Data) -> [String] {
        let encoded = data.base64EncodedString()
        var lines: [String] = []
        var start = encoded.startIndex
        while start < encoded.endIndex {
            let end = encoded.index(start, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[start..<end]))
            start = end
        }
        return lines
    }
}
