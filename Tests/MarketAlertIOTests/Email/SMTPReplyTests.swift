import Foundation
import MarketAlertIO
import Testing

/// Reply parsing (RFC 5321 §4.2): multi-line replies, extensions, and what is not a reply.
@Suite struct SMTPReplyTests {
    @Test func aMultiLineEHLOReply() throws {
        var parser = SMTPReplyParser()
        #expect(try parser.feed("250-smtp.example.org Hello") == nil)
        #expect(try parser.feed("250-SIZE 10240000") == nil)
        #expect(try parser.feed("250-auth PLAIN LOGIN") == nil)
        #expect(parser.isMidReply)
        let reply = try #require(try parser.feed("250 STARTTLS"))
        #expect(reply.code == 250 && reply.lines.count == 4 && !parser.isMidReply)
        #expect(reply.extensions == ["SIZE": "10240000", "AUTH": "PLAIN LOGIN", "STARTTLS": ""])
        #expect(try parser.feed("221") == SMTPReply(code: 221, lines: [""]))
    }

    @Test func whatIsNotAReply() {
        for line in ["hello", "25", "2500 x", "abc def", "250_x"] {
            var parser = SMTPReplyParser()
            #expect(throws: SMTPReplyParser.Failure.self, "\(line)") { try parser.feed(line) }
        }
        var parser = SMTPReplyParser()
        _ = try? parser.feed("250-one")
        #expect(throws: SMTPReplyParser.Failure.self) { try parser.feed("251 other code") }
    }

    @Test func classification() {
        let transient = SMTPFailure.rejected(stage: "DATA", reply: SMTPReply(code: 451, lines: ["4.3.0 busy"]))
        let permanent = SMTPFailure.rejected(stage: "RCPT TO", reply: SMTPReply(code: 550, lines: ["5.1.1 no such user"]))
        #expect(transient.attemptResult == .retryable(reason: "SMTP DATA answered 451 4.3.0 busy", retryAfter: nil))
        #expect(permanent.attemptResult == .permanent(reason: "SMTP RCPT TO answered 550 5.1.1 no such user"))
        #expect(!SMTPFailure.timedOut(.seconds(30)).attemptResult.isPermanentFailure)
        #expect(SMTPFailure.unusable("no AUTH").attemptResult.isPermanentFailure)
        #expect(!SMTPFailure.connectionClosed.attemptResult.isPermanentFailure)
    }

    @Test func authResponses() {
        let credentials = SMTPCredentials(username: "alice", password: "s3cret-passw0rd")
        #expect(Data(base64Encoded: credentials.plainResponse) == Data("\0alice\0s3cret-passw0rd".utf8))
        #expect(SMTPCredentials.mechanism(advertised: "LOGIN PLAIN") == .plain)
        #expect(SMTPCredentials.mechanism(advertised: "login cram-md5") == .login)
        #expect(SMTPCredentials.mechanism(advertised: "CRAM-MD5") == nil)
        #expect(!credentials.redact("535 bad password s3cret-passw0rd for \(credentials.base64Password)").contains("s3cret"))
        #expect("\(credentials.password)" == "<redacted>")
    }
}

extension WebhookAttemptResult {
    var isPermanentFailure: Bool {
        if case .permanent = self { return true }
        return false
    }
}
