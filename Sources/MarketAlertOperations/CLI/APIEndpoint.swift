import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage

/// Where the CLI finds the running daemon and its token: `--url`, else `http.listen` of the config (a
/// wildcard address is reached on loopback); the token from the config's `token_env` (environment or
/// `$CREDENTIALS_DIRECTORY`), or `MARKETALERTD_API_TOKEN` when there is no config to say.
package struct APIEndpoint: Sendable, Equatable {
    package var baseURL: String
    package var token: String?

    package struct Unresolved: Error, CustomStringConvertible {
        package var description: String
    }

    package static let defaultTokenEnv = "MARKETALERTD_API_TOKEN"

    package static func resolve(url: String?, configPath: String, secrets: SecretResolver) throws(Unresolved) -> APIEndpoint {
        let loaded: Result<Settings, ConfigError> = Result { () throws(ConfigError) in try ConfigLoader.load(path: configPath).settings }
        let http = (try? loaded.get())?.http
        let token = secrets.resolve(http?.tokenEnv ?? defaultTokenEnv)
        if let url {
            let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
            guard let parsed = URL(string: trimmed), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw Unresolved(description: "--url: expected http://HOST:PORT, got \"\(url)\"")
            }
            return APIEndpoint(baseURL: trimmed, token: token)
        }
        let settings: Settings
        do { settings = try loaded.get() } catch {
            throw Unresolved(description: "cannot read \(configPath) to find the daemon (\(error.issues.first?.description ?? "invalid")); pass --url")
        }
        guard let http = settings.http else {
            throw Unresolved(description: "\(configPath) has no http section: the daemon serves no API; add http.listen or pass --url")
        }
        guard http.port != 0 else {
            throw Unresolved(description: "http.listen uses port 0 (chosen at start, see the daemon's log or STATUS=); pass --url")
        }
        let host = ["0.0.0.0", "*", ""].contains(http.host) ? "127.0.0.1" : http.host == "::" ? "::1" : http.host
        return APIEndpoint(baseURL: "http://" + HTTPSettings.format(host: host, port: http.port), token: token)
    }
}
