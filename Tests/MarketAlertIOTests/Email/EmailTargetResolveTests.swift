import MarketAlertCore
import MarketAlertDelivery
import MarketAlertIO
import Testing

/// An email sink whose SMTP credentials are missing is disabled, and the warning names what is missing.
@Suite struct EmailTargetResolveTests {
    static func settings() -> EmailSettings {
        var settings = EmailSettings(name: "mail")
        settings.usernameEnv = "SMTP_USER"
        settings.passwordEnv = "SMTP_PASSWORD"
        return settings
    }

    @Test func bothSecretsMissingAreNamedTogether() {
        let (targets, warnings) = EmailTarget.resolve([Self.settings()], secrets: SecretResolver(environment: [:]))
        #expect(targets.isEmpty)
        #expect(warnings == [#"email "mail" is disabled: its secrets SMTP_USER and SMTP_PASSWORD are not set (environment or $CREDENTIALS_DIRECTORY)"#])
    }

    @Test func oneSecretMissingIsNamedAlone() {
        let (targets, warnings) = EmailTarget.resolve([Self.settings()], secrets: SecretResolver(environment: ["SMTP_USER": "alerts"]))
        #expect(targets.isEmpty)
        #expect(warnings == [#"email "mail" is disabled: its secret SMTP_PASSWORD is not set (environment or $CREDENTIALS_DIRECTORY)"#])
    }

    @Test func bothSecretsSetEnableTheSink() {
        let secrets = SecretResolver(environment: ["SMTP_USER": "alerts", "SMTP_PASSWORD": "s3cret-pass"])
        let (targets, warnings) = EmailTarget.resolve([Self.settings()], secrets: secrets)
        #expect(warnings.isEmpty)
        #expect(targets.map(\.name) == ["mail"])
    }
}
