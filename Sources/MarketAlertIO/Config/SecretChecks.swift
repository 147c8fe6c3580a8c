import MarketAlertCore

/// What `check-config` (and startup) can tell about secrets without revealing them: which named secrets are
/// missing, and so which providers or webhooks will be off.
package enum SecretChecks {
    package static func warnings(_ settings: Settings, secrets: SecretResolver) -> [String] {
        var warnings: [String] = []
        for (index, provider) in settings.fx.providers.enumerated() {
            guard let name = provider.appIDEnv else { continue }
            guard let value = secrets.resolve(name) else {
                warnings.append(
                    "fx.providers[\(index)].app_id_env: secret \(name) is not set (environment or $CREDENTIALS_DIRECTORY); "
                        + "\(provider.kind.rawValue) will be skipped")
                continue
            }
            if let short = SecretScrubber.shortSecretIssue(name: name, value: value, path: "fx.providers[\(index)].app_id_env") {
                warnings.append(short.description.replacingOccurrences(of: "warning: ", with: ""))
            }
        }
        warnings += WebhookTarget.resolve(settings.sinks.webhooks, secrets: secrets).warnings
        warnings += EmailTarget.resolve(settings.sinks.email, secrets: secrets).warnings
        warnings += transferKeyWarnings(settings, secrets: secrets)
        // Secrets too short to scrub from error text (as for the FX keys above): ntfy tokens, SMTP credentials.
        var named: [(name: String, path: String)] = []
        for (index, hook) in settings.sinks.webhooks.enumerated() {
            if let name = hook.tokenEnv { named.append((name, "sinks.webhooks[\(index)].token_env")) }
        }
        for (index, email) in settings.sinks.email.enumerated() {
            if let name = email.passwordEnv { named.append((name, "sinks.email[\(index)].password_env")) }
        }
        for secret in named {
            guard let value = secrets.resolve(secret.name),
                  let short = SecretScrubber.shortSecretIssue(name: secret.name, value: value, path: secret.path)
            else { continue }
            warnings.append(short.description.replacingOccurrences(of: "warning: ", with: ""))
        }
        return warnings
    }
}
