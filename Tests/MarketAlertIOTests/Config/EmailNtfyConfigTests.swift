import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import Testing

/// v3 `sinks.email[]`, webhook `format: ntfy` with `token_env`, and `http.external_url`: the example's
/// shapes parse; bad URLs, addresses, half-given credentials and names shared between a webhook and an email
/// sink are errors naming their key path.
@Suite struct EmailNtfyConfigTests {
    private let base = """
        exchanges: { binance: {}, bybit: {} }
        premium:
          rules:
            - { name: g, assets: [btc], exchanges: [binance, bybit], quotes: [usdt] }

        """

    @Test func theExampleShapesParse() throws {
        let yaml = base + """
            sinks:
              webhooks:
                - { name: phone, url: "https://ntfy.sh/marketalertd-example", format: ntfy, token_env: NTFY_TOKEN, kinds: [premium, ipo] }
              email:
                - name: mail
                  smtp_url: "smtp://127.0.0.1:2525"
                  username_env: SMTP_USER
                  password_env: SMTP_PASSWORD
                  from: "marketalertd <alerts@example.invalid>"
                  to: ["me@example.invalid", "Team <team@example.invalid>"]
                  kinds: [ipo, digest]
                  timeout: 10s
                  max_age: 2h
                - { name: tls, smtp_url: "smtps://mail.example.invalid", from: "a@example.invalid", to: ["b@example.invalid"] }
            http: { listen: "127.0.0.1:0", external_url: "http://marketalertd.example.invalid:9108/" }
            """
        let settings = try ConfigLoader.parse(yaml: yaml).settings
        let hook = try #require(settings.sinks.webhooks.first)
        #expect(hook.format == .ntfy && hook.tokenEnv == "NTFY_TOKEN")
        #expect(settings.http?.externalURL?.absoluteString == "http://marketalertd.example.invalid:9108/")
        let mail = try #require(settings.sinks.email.first)
        #expect(mail.host == "127.0.0.1" && mail.port == 2525 && mail.security == .startTLSWhenOffered)
        #expect(mail.usernameEnv == "SMTP_USER" && mail.passwordEnv == "SMTP_PASSWORD")
        #expect(mail.from == EmailAddress(displayName: "marketalertd", address: "alerts@example.invalid"))
        #expect(mail.to == [EmailAddress(address: "me@example.invalid"), EmailAddress(displayName: "Team", address: "team@example.invalid")])
        #expect(mail.kinds == [.ipo, .digest] && mail.timeout == .seconds(10) && mail.maxAge == .seconds(7200))
        let tls = try #require(settings.sinks.email.last)
        #expect(tls.security == .implicitTLS && tls.port == 465 && tls.usernameEnv == nil && tls.kinds == Set(AlertKind.allCases))
    }

    @Test func mistakesNameTheirKeyPaths() throws {
        let yaml = base + """
            sinks:
              webhooks:
                - { name: mail, url: "http://127.0.0.1:1/x", token_env: TOKEN }
              email:
                - { name: mail, smtp_url: "http://127.0.0.1:25", from: "nobody", to: [] }
                - { name: b, smtp_url: "smtp://user:pw@127.0.0.1", username_env: U, from: "a@b.c", to: ["x y@z.org"], kinds: [] }
                - { name: c, smtp_url: "smtps://h/path", from: "a@b.c", to: ["ok@z.org"], port: 25 }
                - { smtp_url: "smtp://h" }
            http: { listen: "127.0.0.1:0", external_url: "ftp://x" }
            """
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let paths = Set(error.issues.filter { $0.severity == .error }.map(\.path))
        for path in [
            "sinks.webhooks[0].token_env", "sinks.email[0].name", "sinks.email[0].smtp_url", "sinks.email[0].from", "sinks.email[0].to",
            "sinks.email[1].smtp_url", "sinks.email[1].password_env", "sinks.email[1].to[0]", "sinks.email[1].kinds",
            "sinks.email[2].smtp_url", "sinks.email[2].port", "sinks.email[3].name", "sinks.email[3].from", "sinks.email[3].to",
            "http.external_url",
        ] {
            #expect(paths.contains(path), "\(path) in \(paths.sorted())")
        }
        // The URL's credentials are never echoed.
        #expect(!error.description.contains("pw@"))
    }

    @Test func addresses() {
        #expect(EmailAddress.parse("a@b.org") == EmailAddress(address: "a@b.org"))
        #expect(EmailAddress.parse("\"Ops, Tokyo\" <ops@b.org>") == EmailAddress(displayName: "Ops, Tokyo", address: "ops@b.org"))
        #expect(EmailAddress.parse("長聖 <ipo@b.org>") == EmailAddress(displayName: "長聖", address: "ipo@b.org"))
        for bad in ["", "a", "a@", "@b", "a b@c.org", "a@b.org\r\nBcc: x@y.org", "<a@b.org", "ü@b.org", "a@b@c.org"] {
            #expect(EmailAddress.parse(bad) == nil, "\(bad)")
        }
    }
}
