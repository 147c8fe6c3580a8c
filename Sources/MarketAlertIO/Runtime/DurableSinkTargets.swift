import Foundation
import Logging
import MarketAlertCore

/// The outbox's targets for a configuration: every enabled webhook (ntfy included) and every email sink,
/// secrets resolved. One outbox holds them all (queue, retries, max_age, HA fencing and metrics alike);
/// names are unique across both (the config reader rejects a duplicate).
package enum DurableSinkTargets {
    package static func make(
        _ settings: Settings, secrets: SecretResolver, sender: WebhookSender, clock: any DaemonClock, logger: Logger? = nil
    ) -> (targets: [any DeliveryTarget], warnings: [String]) {
        let webhooks = WebhookTarget.resolve(settings.sinks.webhooks, secrets: secrets, externalURL: settings.http?.externalURL)
        let email = EmailTarget.resolve(settings.sinks.email, secrets: secrets)
        let targets: [any DeliveryTarget] =
            webhooks.targets.map { WebhookDelivery($0, sender: sender) } + email.targets.map { EmailDelivery($0, clock: clock, logger: logger) }
        return (targets, webhooks.warnings + email.warnings)
    }

    /// Names of the configured durable sinks (webhooks, then email), e.g. for the outbox metrics.
    package static func names(_ settings: Settings) -> [String] {
        settings.sinks.webhooks.map(\.name) + settings.sinks.email.map(\.name)
    }
}
