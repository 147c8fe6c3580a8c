import Foundation
import MarketAlertCore
import MarketAlertKit

/// Why a configured FX provider cannot be used (its `issue` is a warning naming the key, never a secret).
package struct RateSourceUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    package var issue: ConfigIssue

    package init(issue: ConfigIssue) { self.issue = issue }

    package var description: String { issue.description }
}

/// Builds the `RateSource` of each configured `fx.providers` entry.
package enum RateSources {
    /// One provider. `path` is its config key path (for the warning). OpenExchangeRates without its secret
    /// is unavailable: the warning names the secret (`OXR_APP_ID`), never a value.
    package static func make(
        _ settings: FXProviderSettings, timeout: Duration, fetcher: HTTPFetcher, secrets: SecretResolver,
        path: String = "fx.providers"
    ) -> Result<any RateSource, RateSourceUnavailable> {
        switch settings.kind {
        case .dunamu:
            return .success(DunamuRateSource(baseURL: settings.baseURL, timeout: timeout, fetcher: fetcher))
        case .frankfurter:
            return .success(FrankfurterRateSource(baseURL: settings.baseURL, timeout: timeout, fetcher: fetcher))
        case .openexchangerates:
            guard let name = settings.appIDEnv, !name.isEmpty else {
                return .failure(RateSourceUnavailable(issue: ConfigIssue(
                    path: "\(path).app_id_env", message: "openexchangerates is unavailable: app_id_env is not set",
                    severity: .warning)))
            }
            guard let appID = secrets.resolve(name) else {
                return .failure(RateSourceUnavailable(issue: ConfigIssue(
                    path: "\(path).app_id_env",
                    message: "openexchangerates is unavailable: secret \(name) is not set "
                        + "(environment variable \(name) or $CREDENTIALS_DIRECTORY/\(name))",
                    severity: .warning)))
            }
            return .success(OpenExchangeRatesSource(baseURL: settings.baseURL, appID: appID, timeout: timeout, fetcher: fetcher))
        }
    }

    /// Every configured provider that can be used, in configured order (the failover order), plus a
    /// warning for each one that cannot.
    package static func makeAll(
        _ fx: FXSettings, fetcher: HTTPFetcher, secrets: SecretResolver
    ) -> (sources: [any RateSource], issues: [ConfigIssue]) {
        var sources: [any RateSource] = []
        var issues: [ConfigIssue] = []
        for (index, provider) in fx.providers.enumerated() {
            switch make(provider, timeout: fx.timeout, fetcher: fetcher, secrets: secrets, path: "fx.providers[\(index)]") {
            case .success(let source):
                sources.append(source)
                if let name = provider.appIDEnv, let value = secrets.resolve(name),
                   let short = SecretScrubber.shortSecretIssue(name: name, value: value, path: "fx.providers[\(index)].app_id_env") {
                    issues.append(short)
                }
            case .failure(let unavailable): issues.append(unavailable.issue)
            }
        }
        return (sources, issues)
    }
}
