import Foundation

/// How an email sink reaches its server: `smtp://` (STARTTLS whenever the server offers it) or `smtps://`
/// (TLS from the first byte).
package enum SMTPSecurity: String, Sendable, Equatable {
    case startTLSWhenOffered = "smtp"
    case implicitTLS = "smtps"
}

/// v3 `sinks.email[]`: one message per notification over SMTP, through the durable outbox.
package struct EmailSettings: Sendable, Equatable {
    package var name: String
    package var host = ""
    package var port = 25
    package var security = SMTPSecurity.startTLSWhenOffered
    package var usernameEnv: String?
    package var passwordEnv: String?
    package var from = EmailAddress(address: "marketalertd@localhost")
    package var to: [EmailAddress] = []
    package var kinds: Set<AlertKind> = Set(AlertKind.allCases)
    /// The whole SMTP exchange of one notification (connect to QUIT).
    package var timeout: Duration = .seconds(30)
    package var maxAge: Duration = .seconds(24 * 3600)
    /// PEM file of the certificates to trust instead of the system's (a private CA or a self-signed server).
    package var caFile: String?

    package init(name: String) { self.name = name }

    /// Reads one `sinks.email[]` entry; `names` holds the sink names seen so far (webhooks and email share
    /// them: routes refer to sinks by name).
    static func read(_ sub: ConfigTable, names: inout Set<String>) -> EmailSettings {
        let name = sub.required("name", sub.string) ?? ""
        if !name.isEmpty, !names.insert(name).inserted { sub.error("name", "duplicate sink name \"\(name)\" (webhook and email names share one namespace)") }
        var email = EmailSettings(name: name)
        if let text = sub.required("smtp_url", sub.string) { email.readURL(text, sub) }
        email.usernameEnv = secretName("username_env", sub)
        email.passwordEnv = secretName("password_env", sub)
        if (email.usernameEnv == nil) != (email.passwordEnv == nil) {
            sub.error(email.usernameEnv == nil ? "username_env" : "password_env", "give both username_env and password_env, or neither")
        }
        if let text = sub.required("from", sub.string) {
            if let address = EmailAddress.parse(text) { email.from = address } else { sub.error("from", "expected an address such as \"alerts@example.org\" or \"marketalertd <alerts@example.org>\"") }
        }
        if let items = sub.required("to", sub.list) {
            for item in items {
                guard let text = ConfigValue.string(item.node, path: item.path, sub.diagnosticsSink) else { continue }
                if let address = EmailAddress.parse(text) { email.to.append(address) } else {
                    sub.diagnosticsSink.error(item.path, "expected an address such as \"me@example.org\"", at: item.node.mark)
                }
            }
            if items.isEmpty { sub.error("to", "must list at least one address") }
        }
        if let kinds = sub.oneOfList("kinds", as: AlertKind.self) {
            if kinds.isEmpty { sub.error("kinds", "must list at least one kind") }
            email.kinds = Set(kinds)
        }
        if let value = sub.duration("timeout") {
            if value > .zero { email.timeout = value } else { sub.error("timeout", "must be greater than 0") }
        }
        if let value = sub.duration("max_age") {
            if value > .zero { email.maxAge = value } else { sub.error("max_age", "must be greater than 0") }
        }
        email.caFile = sub.string("ca_file")
        sub.finish()
        return email
    }

    /// `smtp://host[:port]` or `smtps://host[:port]`; no user, password, path or query (secrets go in `*_env`).
    private mutating func readURL(_ text: String, _ sub: ConfigTable) {
        let example = "expected smtp://HOST[:PORT] or smtps://HOST[:PORT]"
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let security = SMTPSecurity(rawValue: scheme),
              let host = url.host, !host.isEmpty
        else {
            sub.error("smtp_url", text.contains("@") ? example : "\(example), got \"\(text)\"")
            return
        }
        guard url.user == nil, url.password == nil else {
            sub.error("smtp_url", "must not contain a user name or password: use username_env and password_env")
            return
        }
        guard url.path.isEmpty || url.path == "/", url.query == nil else {
            sub.error("smtp_url", "\(example) (no path or query), got \"\(text)\"")
            return
        }
        self.security = security
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = url.port ?? (security == .implicitTLS ? 465 : 25)
    }

    private static func secretName(_ key: String, _ sub: ConfigTable) -> String? {
        guard let name = sub.string(key) else { return nil }
        if name.isEmpty || name.contains("/") || name.contains("=") {
            sub.error(key, "expected the name of an environment variable or credential, got \"\(name)\"")
            return nil
        }
        return name
    }
}
