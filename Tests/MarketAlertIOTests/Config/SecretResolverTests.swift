import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

@Suite struct SecretResolverTests {
    @Test func environmentWinsThenCredentialsDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("creds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "from-file\n".write(to: directory.appendingPathComponent("OXR_APP_ID"), atomically: true, encoding: .utf8)

        let fileOnly = SecretResolver(environment: ["CREDENTIALS_DIRECTORY": directory.path])
        #expect(fileOnly.resolve("OXR_APP_ID") == "from-file")
        let both = SecretResolver(environment: ["CREDENTIALS_DIRECTORY": directory.path, "OXR_APP_ID": "from-env"])
        #expect(both.resolve("OXR_APP_ID") == "from-env")
        #expect(fileOnly.resolve("WEBHOOK_SECRET") == nil)
        #expect(fileOnly.resolve("../etc/passwd") == nil)
    }

    @Test func configErrorsNeverContainSecretValues() throws {
        // A secret is referenced by name only; a wrong type next to it must not echo the environment.
        let yaml = "sinks:\n  webhooks:\n    - { name: a, url_env: SLACK_URL, format: slack, timeout: never }\n"
        setenv("SLACK_URL", "https://hooks.slack.invalid/T000/SECRET-TOKEN", 1)
        defer { unsetenv("SLACK_URL") }
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        #expect(!error.description.contains("SECRET-TOKEN"))
        #expect(error.description.contains("sinks.webhooks[0].timeout"))
    }
}
