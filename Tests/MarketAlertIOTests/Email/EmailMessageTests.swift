import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// The message of one notification: a subject naming it (RFC 2047 when not ASCII), Date, a Message-ID made
/// from the notification id, and a base64 UTF-8 body holding the text rendering; CRLF lines of at most 78.
@Suite struct EmailMessageTests {
    static let from = EmailAddress(displayName: "marketalertd", address: "alerts@example.org")
    static let to = [EmailAddress(address: "me@example.org"), EmailAddress(displayName: "長聖 desk", address: "desk@example.org")]

    /// Header name → value (continuation lines unfolded) and the body's decoded text.
    static func parse(_ data: Data) throws -> (headers: [String: String], body: String) {
        let text = String(decoding: data, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = try #require(parts.first).replacingOccurrences(of: "\r\n ", with: " ")
        var headers: [String: String] = [:]
        for line in head.components(separatedBy: "\r\n") {
            let split = try #require(line.range(of: ": "))
            headers[String(line[..<split.lowerBound])] = String(line[split.upperBound...])
        }
        let base64 = parts.dropFirst().joined(separator: "\r\n\r\n").replacingOccurrences(of: "\r\n", with: "")
        let body = try #require(Data(base64Encoded: base64))
        return (headers, String(decoding: body, as: UTF8.self))
    }

    /// RFC 2047 `=?UTF-8?B?…?=` words decoded and joined (the independent check is Python's email module in the SMTP tests).
    static func decodeWords(_ value: String) -> String {
        value.split(separator: " ").map { word -> String in
            guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?=") else { return String(word) }
            let payload = word.dropFirst(10).dropLast(2)
            return Data(base64Encoded: String(payload)).map { String(decoding: $0, as: UTF8.self) } ?? String(word)
        }.joined()
    }

    @Test func aPremiumNotification() throws {
        var event = SampleEvents.premium(id: "0b7c1a2e-1111-4222-8333-944455566677")
        event.premium?.pct = 3.5
        let data = EmailMessage.render(event, from: Self.from, to: Self.to)
        let (headers, body) = try Self.parse(data)
        #expect(headers["Subject"] == "[warning] BTC global premium 3.5%")
        #expect(headers["Message-ID"] == "<0b7c1a2e-1111-4222-8333-944455566677@example.org>")
        #expect(headers["Date"] == "Tue, 10 Mar 2026 02:47:00 +0000")
        #expect(headers["From"] == "\"marketalertd\" <alerts@example.org>")
        #expect(headers["MIME-Version"] == "1.0" && headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(headers["Content-Transfer-Encoding"] == "base64")
        #expect(body == WebhookBody.text(for: event).replacingOccurrences(of: "\n", with: "\r\n") + "\r\n")
        let lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.count <= 78 && !$0.contains("\n") && !$0.contains("\r") })
        #expect(data.allSatisfy { $0 < 128 })  // 7-bit: goes through any server unchanged
    }

    @Test func anIPONotificationHasAnEncodedSubjectAndRecipient() throws {
        let event = SampleEvents.ipo()
        let (headers, body) = try Self.parse(EmailMessage.render(event, from: Self.from, to: Self.to))
        let subject = try #require(headers["Subject"])
        #expect(subject.hasPrefix("=?UTF-8?B?"))
        #expect(Self.decodeWords(subject) == "IPO 7795 長廣 opens today")
        let to = try #require(headers["To"])
        #expect(to.hasPrefix("me@example.org, =?UTF-8?B?") && to.hasSuffix(" <desk@example.org>"))
        #expect(body.contains("長廣"))
    }

    @Test func theSameNotificationRendersTheSameBytes() {
        let event = SampleEvents.source()
        #expect(EmailMessage.render(event, from: Self.from, to: Self.to) == EmailMessage.render(event, from: Self.from, to: Self.to))
        let other = SampleEvents.source()
        #expect(EmailMessage.render(event, from: Self.from, to: Self.to) != EmailMessage.render(other, from: Self.from, to: Self.to))
    }

    @Test func aDigestIsOneMessage() throws {
        let digest = DigestDetail(
            day: "2026-03-10", timeZone: "Asia/Seoul",
            premium: [
                .init(rule: "kimchi", asset: "BTC", minPct: 1.2, maxPct: 3.4, lastPct: 2.0, maxAt: SampleEvents.at, notifications: 2),
                .init(rule: "global", asset: "ETH", minPct: 0.01, maxPct: 0.2, lastPct: 0.05, maxAt: nil, notifications: 0),
            ],
            ipo: [try #require(SampleEvents.ipo().ipo)])
        let event = AlertEvent(
            id: EventID.make(), key: "digest/2026-03-10", kind: .digest, status: "info", severity: .info, at: SampleEvents.at,
            summary: "Daily digest 2026-03-10 (Asia/Seoul): 2 premiums, highest BTC (kimchi) 3.4%; 1 IPO window open", digest: digest)
        let (headers, body) = try Self.parse(EmailMessage.render(event, from: Self.from, to: Self.to))
        #expect(headers["Subject"] == "Daily digest 2026-03-10 (Asia/Seoul): 2 premiums, highest BTC (kimchi) 3.4%; 1 IPO window open")
        let lines = DigestEvents.lines(digest)
        #expect(lines.count >= 3)
        for line in lines { #expect(body.contains(line.replacingOccurrences(of: "\n", with: "\r\n")), "\(line)") }
    }

    @Test func titlesOfOtherKinds() {
        #expect(NotificationTitle.text(for: SampleEvents.source()) == "[critical] binance failing: HTTP 503 (3 polls)")
        var resolved = SampleEvents.premium()
        resolved.status = "resolved"
        resolved.premium?.pct = 0.04
        #expect(NotificationTitle.text(for: resolved) == "[resolved] BTC global premium 0.04%")
        #expect(NotificationTitle.percent(-0.25) == "-0.25" && NotificationTitle.percent(12) == "12" && NotificationTitle.percent(.nan) == "?")
    }

    @Test func encodedWordsNeverSplitACharacterAndStayWithinTheLimit() {
        let text = String(repeating: "長聖👨‍👩‍👧", count: 40)
        let words = MIMEEncodedWord.encode(text)
        #expect(words.count > 1)
        #expect(words.allSatisfy { $0.count <= 75 })
        #expect(Self.decodeWords(words.joined(separator: " ")) == text)
        #expect(MIMEEncodedWord.encodeIfNeeded("plain ascii") == "plain ascii")
        #expect(MIMEEncodedWord.encodeIfNeeded("looks =?like?= a word") != "looks =?like?= a word")
    }

    @Test func dataSectionsAreDotStuffedWithCRLF() {
        let encoded = SMTPDataEncoding.encode(Array(".first\nmiddle\r\n..two\rlast".utf8))
        #expect(String(decoding: encoded, as: UTF8.self) == "..first\r\nmiddle\r\n...two\r\nlast\r\n.\r\n")
        #expect(String(decoding: SMTPDataEncoding.encode(Array("a\r\n".utf8)), as: UTF8.self) == "a\r\n.\r\n")
    }
}
