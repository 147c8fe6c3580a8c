import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

@Suite("Webhook targets: resolving url_env and secret_env")
struct WebhookTargetTests {
    static let slackURL = "https://hooks.slack.example/services/T000/B000/XyZsecretTOKEN"

    func settings(_ name: String, _ configure: (inout WebhookSettings) -> Void) -> WebhookSettings {
        var settings = WebhookSettings(name: name)
        configure(&settings)
        return settings
    }

    @Test("url_env and secret_env from the environment")
    func resolvesFromEnvironment() throws {
        let hooks = [
            settings("chat") {
                $0.urlEnv = "SLACK_WEBHOOK_URL"
                $0.format = .slack
                $0.kinds = [.premium]
            },
            settings("ops") {
                $0.url = URL(string: "https://ops.example/hook")
                $0.secretEnv = "WEBHOOK_SECRET"
                $0.timeout = .seconds(3)
                $0.maxAge = .seconds(600)
            },
        ]
        let secrets = SecretResolver(environment: [
            "SLACK_WEBHOOK_URL": Self.slackURL, "WEBHOOK_SECRET": "whsec_" + Data(repeating: 7, count: 32).base64EncodedString(),
        ])

        let (targets, warnings) = WebhookTarget.resolve(hooks, secrets: secrets)

        #expect(warnings.isEmpty)
        #expect(targets.map(\.name) == ["chat", "ops"])
        #expect(targets[0].url.absoluteString == Self.slackURL)
        #expect(targets[0].urlSecretName == "SLACK_WEBHOOK_URL")
        #expect(targets[0].signingKey == nil)
        #expect(targets[0].kinds == [.premium])
        #expect(targets[1].urlSecretName == nil)
        #expect(targets[1].signingKey == (try WebhookSigningKey(secret: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString())))
        #expect(targets[1].timeout == .seconds(3))
        #expect(targets[1].maxAge == .seconds(600))
    }

    @Test("secrets from $CREDENTIALS_DIRECTORY (systemd LoadCredential=)")
    func resolvesFromCredentialsDirectory() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data((Self.slackURL + "\n").utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent("SLACK_WEBHOOK_URL"))
        try Data("a-raw-secret-of-32-characters!!!\n".utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent("HOOK_KEY"))
        let hooks = [settings("chat") { $0.urlEnv = "SLACK_WEBHOOK_URL"; $0.secretEnv = "HOOK_KEY" }]

        let (targets, warnings) = WebhookTarget.resolve(hooks, secrets: SecretResolver(environment: ["CREDENTIALS_DIRECTORY": directory]))

        #expect(warnings.isEmpty)
        #expect(targets.first?.url.absoluteString == Self.slackURL)
        #expect(targets.first?.signingKey == (try WebhookSigningKey(secret: "a-raw-secret-of-32-characters!!!")))
    }

    @Test("a missing url_env or secret_env secret disables the webhook with a warning naming the secret")
    func missingSecretsDisable() {
        let hooks = [
            settings("chat") { $0.urlEnv = "SLACK_WEBHOOK_URL" },
            settings("ops") {
                $0.url = URL(string: "https://ops.example/hook")
                $0.secretEnv = "WEBHOOK_SECRET"
            },
            settings("plain") { $0.url = URL(string: "https://plain.example/hook") },
        ]

        let (targets, warnings) = WebhookTarget.resolve(hooks, secrets: SecretResolver(environment: [:]))

        #expect(targets.map(\.name) == ["plain"])
        #expect(warnings.count == 2)
        #expect(warnings[0].contains("\"chat\"") && warnings[0].contains("SLACK_WEBHOOK_URL") && warnings[0].contains("disabled"))
        #expect(warnings[1].contains("\"ops\"") && warnings[1].contains("WEBHOOK_SECRET") && warnings[1].contains("unsigned"))
    }

    @Test("unusable secret values disable the webhook without quoting the value")
    func unusableSecretValues() {
        let hooks = [
            settings("bad-url") { $0.urlEnv = "BAD_URL" },
            settings("bad-key") {
                $0.url = URL(string: "https://ops.example/hook")
                $0.secretEnv = "BAD_KEY"
            },
            settings("short-key") {
                $0.url = URL(string: "https://ops.example/hook")
                $0.secretEnv = "SHORT_KEY"
            },
        ]
        let secrets = SecretResolver(environment: [
            "BAD_URL": "ftp://files.example/SECRETPART", "BAD_KEY": "whsec_%%%SECRETPART", "SHORT_KEY": "SECRETPART",
        ])

        let (targets, warnings) = WebhookTarget.resolve(hooks, secrets: secrets)

        #expect(targets.map(\.name) == ["short-key"])
        #expect(warnings.count == 3)
        #expect(warnings.contains { $0.contains("\"bad-url\"") && $0.contains("BAD_URL") && $0.contains("not an http(s) URL") })
        #expect(warnings.contains { $0.contains("\"bad-key\"") && $0.contains("BAD_KEY") && $0.contains("base64") })
        #expect(warnings.contains { $0.contains("\"short-key\"") && $0.contains("at least 24") })
        #expect(!warnings.contains { $0.contains("SECRETPART") })
    }

    @Test("redact hides the URL and its token")
    func redaction() throws {
        let secret = WebhookTarget(name: "chat", url: try #require(URL(string: Self.slackURL)), urlSecretName: "SLACK_WEBHOOK_URL")
        #expect(secret.redact("POST \(Self.slackURL) failed") == "POST <redacted> failed")
        #expect(!secret.redact("path /services/T000/B000/XyZsecretTOKEN").contains("XyZsecretTOKEN"))
        let telegram = WebhookTarget(
            name: "tg", url: try #require(URL(string: "https://api.telegram.example/bot123:ABCsecret/sendMessage")),
            urlSecretName: "TG_URL")
        #expect(!telegram.redact("error at https://api.telegram.example/bot123:ABCsecret/sendMessage").contains("ABCsecret"))
        let plain = WebhookTarget(name: "ops", url: try #require(URL(string: "https://ops.example/hook?token=abc123")))
        #expect(plain.redact("failed: https://ops.example/hook?token=abc123") == "failed: <redacted>")
        #expect(plain.redact("query token=abc123 echoed") == "query <redacted> echoed")
        #expect(plain.redact("HTTP 503") == "HTTP 503")
    }
}
