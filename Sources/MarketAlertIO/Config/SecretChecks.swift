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
        return warnings
    }
}
