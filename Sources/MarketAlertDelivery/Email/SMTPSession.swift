import Foundation
import MarketAlertCore

/// One message sent over one SMTP connection (RFC 5321): greeting, EHLO (HELO for an old server),
/// STARTTLS when `smtp://` and offered, AUTH when credentials are configured, MAIL FROM, RCPT TO per
/// recipient, DATA, QUIT. Throws `SMTPFailure` naming the step that failed; returns when the server has
/// accepted the message (the 250 after DATA).
///
/// Credentials are sent only over TLS, or in clear to a loopback server. Recipients refused with 5xx while
/// others were accepted are left out (the accepted ones get the message; retrying would send it twice).
package struct SMTPSession: Sendable {
    package var host: String
    package var port: Int
    package var security: SMTPSecurity
    package var credentials: SMTPCredentials?
    package var caFile: String?
    /// The name this client says in EHLO.
    package var clientName: String

    package init(host: String, port: Int, security: SMTPSecurity, credentials: SMTPCredentials?, caFile: String?, clientName: String) {
        self.host = host
        self.port = port
        self.security = security
        self.credentials = credentials
        self.caFile = caFile
        self.clientName = clientName
    }

    /// What the server accepted: the DATA reply and any recipients it refused.
    package struct Outcome: Sendable, Equatable {
        package var reply: SMTPReply
        package var refusedRecipients: [String]
    }

    package func send(message: [UInt8], from: String, to recipients: [String]) async throws -> Outcome {
        let connection = try await SMTPConnection.connect(host: host, port: port, implicitTLS: security == .implicitTLS, caFile: caFile)
        return try await withTaskCancellationHandler {
            defer { connection.close() }
            return try await converse(connection, message: message, from: from, to: recipients)
        } onCancel: {
            connection.close()
        }
    }

    private func converse(_ connection: SMTPConnection, message: [UInt8], from: String, to recipients: [String]) async throws -> Outcome {
        try expect(try await connection.read(), 220, stage: "greeting")
        var capabilities = try await hello(connection)
        var encrypted = security == .implicitTLS
        if !encrypted, capabilities["STARTTLS"] != nil {
            try await connection.send("STARTTLS")
            try expect(try await connection.read(), 220, stage: "STARTTLS")
            try await connection.startTLS()
            encrypted = true
            capabilities = try await hello(connection)  // RFC 3207: forget what was said before TLS
        }
        if let credentials {
            guard encrypted || HTTPSettings.isLoopback(host) else {
                throw SMTPFailure.unusable("the server offers no STARTTLS; the password is not sent unencrypted (use smtps:// or a server with STARTTLS)")
            }
            try await authenticate(connection, credentials: credentials, advertised: capabilities["AUTH"])
        }
        try await connection.send("MAIL FROM:<\(from)>")
        try expect(try await connection.read(), 250, stage: "MAIL FROM")
        var refused: [String] = []
        var firstRefusal: SMTPFailure?
        for recipient in recipients {
            try await connection.send("RCPT TO:<\(recipient)>")
            let reply = try await connection.read()
            guard reply.code == 250 || reply.code == 251 else {
                refused.append(recipient)
                firstRefusal = firstRefusal ?? .rejected(stage: "RCPT TO", reply: reply)
                continue
            }
        }
        if refused.count == recipients.count, let firstRefusal { throw firstRefusal }
        try await connection.send("DATA")
        try expect(try await connection.read(), 354, stage: "DATA")
        try await connection.write(SMTPDataEncoding.encode(message))
        let accepted = try await connection.read()
        try expect(accepted, 250, stage: "end of DATA")
        // Accepted: a failing QUIT changes nothing.
        try? await connection.send("QUIT")
        _ = try? await connection.read()
        return Outcome(reply: accepted, refusedRecipients: refused)
    }

    /// EHLO, or HELO when the server does not know EHLO; the extensions the server lists.
    private func hello(_ connection: SMTPConnection) async throws -> [String: String] {
        try await connection.send("EHLO \(clientName)")
        let reply = try await connection.read()
        if reply.code == 250 { return reply.extensions }
        guard reply.code == 500 || reply.code == 502 else { throw SMTPFailure.rejected(stage: "EHLO", reply: reply) }
        try await connection.send("HELO \(clientName)")
        try expect(try await connection.read(), 250, stage: "HELO")
        return [:]
    }

    private func authenticate(_ connection: SMTPConnection, credentials: SMTPCredentials, advertised: String?) async throws {
        guard let advertised, let mechanism = SMTPCredentials.mechanism(advertised: advertised) else {
            throw SMTPFailure.unusable("the server offers no AUTH PLAIN or LOGIN; cannot log in")
        }
        switch mechanism {
        case .plain:
            try await connection.send("AUTH PLAIN \(credentials.plainResponse)")
        case .login:
            try await connection.send("AUTH LOGIN")
            try expect(try await connection.read(), 334, stage: "AUTH LOGIN")
            try await connection.send(credentials.base64Username)
            try expect(try await connection.read(), 334, stage: "AUTH LOGIN user name")
            try await connection.send(credentials.base64Password)
        }
        try expect(try await connection.read(), 235, stage: "AUTH \(mechanism.rawValue)")
    }

    private func expect(_ reply: SMTPReply, _ code: Int, stage: String) throws {
        guard reply.code == code else { throw SMTPFailure.rejected(stage: stage, reply: reply) }
    }
}
