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
            if let short = shortSecret(name: name, value: value, path: "fx.providers[\(index)].app_id_env") {
                warnings.append(short.description.replacingOccurrences(of: "warning: ", with: ""))
            }
        }
        warnings += WebhookTarget.resolve(settings.sinks.webhooks, secrets: secrets).warnings
        return warnings
    }

    /// A warning for a secret too short to be scrubbed from error texts (`SecretScrubber`): names the secret
    /// and its length, never its value.
    package static func shortSecret(name: String, value: String, path: String) -> ConfigIssue? {
        guard SecretScrubber.isTooShort(value) else { return nil }
        return ConfigIssue(
            path: path,
            message: "secret \(name) is only \(value.count) characters; secrets shorter than \(SecretScrubber.minimumLength) "
                + "are not scrubbed from error texts, so an upstream echoing it could show it in logs (check the value)",
            severity: .warning)
    }
}
