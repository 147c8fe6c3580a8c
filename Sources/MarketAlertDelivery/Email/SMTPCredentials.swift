import Foundation
import MarketAlertKit

/// A user name and password for SMTP AUTH, and the two mechanisms every server offers one of (RFC 4954):
/// PLAIN (RFC 4616: `\0user\0password` in one base64 line) and LOGIN (user, then password, each answering
/// a 334 challenge). Never printed: the values are `SecretValue`s.
package struct SMTPCredentials: Sendable, Equatable {
    package var username: SecretValue
    package var password: SecretValue

    package init(username: String, password: String) {
        self.username = SecretValue(username)
        self.password = SecretValue(password)
    }

    package enum Mechanism: String, Sendable, Equatable {
        case plain = "PLAIN"
        case login = "LOGIN"
    }

    /// PLAIN when the server lists it, else LOGIN; nil when it lists neither. `advertised` is EHLO's `AUTH`
    /// parameter (`"PLAIN LOGIN CRAM-MD5"`).
    package static func mechanism(advertised: String) -> Mechanism? {
        let offered = Set(advertised.uppercased().split(separator: " ").map(String.init))
        if offered.contains(Mechanism.plain.rawValue) { return .plain }
        if offered.contains(Mechanism.login.rawValue) { return .login }
        return nil
    }

    /// PLAIN's initial response: base64 of an empty authorization identity, the user and the password.
    package var plainResponse: String {
        Data(([0] + Array(username.value.utf8) + [0] + Array(password.value.utf8))).base64EncodedString()
    }

    package var base64Username: String { Data(username.value.utf8).base64EncodedString() }
    package var base64Password: String { Data(password.value.utf8).base64EncodedString() }

    /// Text with the user name, the password and their base64 forms removed (a server may echo them).
    package func redact(_ text: String) -> String {
        SecretScrubber.scrub(text, secrets: [username.value, password.value, base64Username, base64Password, plainResponse])
    }
}
