import Foundation
import MarketAlertCore
import MarketAlertKit

/// One enabled email sink: its settings with the SMTP credentials resolved. Built by `resolve`, which
/// leaves out a sink whose `username_env` or `password_env` secret is missing (with a warning naming the
/// sink and the secret, never a value).
package struct EmailTarget: Sendable, Equatable {
    package var settings: EmailSettings
    package var credentials: SMTPCredentials?

    package init(settings: EmailSettings, credentials: SMTPCredentials? = nil) {
        self.settings = settings
        self.credentials = credentials
    }

    package var name: String { settings.name }

    package static func resolve(_ settings: [EmailSettings], secrets: SecretResolver) -> (targets: [EmailTarget], warnings: [String]) {
        var targets: [EmailTarget] = []
        var warnings: [String] = []
        for email in settings {
            var credentials: SMTPCredentials?
            if let userEnv = email.usernameEnv, let passwordEnv = email.passwordEnv {
                let missing = [userEnv, passwordEnv].filter { secrets.resolve($0) == nil }
                guard missing.isEmpty, let user = secrets.resolve(userEnv), let password = secrets.resolve(passwordEnv) else {
                    let names = missing.joined(separator: " and ")
                    let phrase = missing.count == 1 ? "secret \(names) is" : "secrets \(names) are"
                    warnings.append("email \"\(email.name)\" is disabled: its \(phrase) not set (environment or $CREDENTIALS_DIRECTORY)")
                    continue
                }
                credentials = SMTPCredentials(username: user, password: password)
            }
            targets.append(EmailTarget(settings: email, credentials: credentials))
        }
        return (targets, warnings)
    }

    /// The SMTP exchange for this sink.
    package var session: SMTPSession {
        SMTPSession(
            host: settings.host, port: settings.port, security: settings.security, credentials: credentials,
            caFile: settings.caFile, clientName: Self.clientName)
    }

    /// The name said in EHLO: this machine's host name when it is a plain DNS name, else `localhost`.
    static let clientName: String = {
        let host = ProcessInfo.processInfo.hostName
        let valid = !host.isEmpty && host.count < 254 && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        return valid ? host : "localhost"
    }()

    /// Error text with the credentials (plain and base64) removed.
    package func redact(_ text: String) -> String { credentials?.redact(text) ?? text }
}
