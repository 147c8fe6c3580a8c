import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// The HA group's database URL, from the secret `ha.postgres_url_env` names (environment or
/// `$CREDENTIALS_DIRECTORY`): the daemon's membership and `check-config`'s connection check read it alike.
package enum HADatabaseURL {
    package static func resolve(_ settings: HASettings, secrets: SecretResolver) throws(HAConfigurationError) -> PostgresURL {
        guard let text = secrets.resolve(settings.postgresURLEnv) else {
            throw HAConfigurationError(
                message: "ha: the database URL secret \(settings.postgresURLEnv) is not set (environment variable or $CREDENTIALS_DIRECTORY/\(settings.postgresURLEnv))")
        }
        do { return try PostgresURL(text) } catch {
            throw HAConfigurationError(message: "ha: the database URL in \(settings.postgresURLEnv) is not usable: \(error)")
        }
    }
}

/// An HA configuration the daemon cannot start with (its message names the key or secret).
package struct HAConfigurationError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }

    package init(message: String) { self.message = message }
}
