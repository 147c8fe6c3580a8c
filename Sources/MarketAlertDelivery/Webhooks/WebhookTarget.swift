import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// One enabled webhook: its settings with the secrets resolved (URL from `url_env`, signing key from
/// `secret_env`). Built by `resolve`, which disables webhooks whose secrets are missing.
package struct WebhookTarget: Sendable, Equatable {
    package var name: String
    package var url: URL
    /// The secret the URL came from (`url_env`), if any. Such URLs are credentials (Slack, Discord and Telegram
    /// put the token in the URL); no URL is ever logged, and `redact` removes them from error text.
    package var urlSecretName: String?
    package var format: WebhookFormat
    /// Sign with this key (`secret_env`); nil sends unsigned (only when no `secret_env` is configured).
    package var signingKey: WebhookSigningKey?
    /// Per-request timeout.
    package var timeout: Duration
    /// Keep retrying a notification this long after it was queued, then drop it.
    package var maxAge: Duration
    package var kinds: Set<AlertKind>
    /// Telegram's `chat_id`.
    package var chatID: String?
    /// ntfy's access token (`token_env`), sent as `Authorization: Bearer`; never stored or logged.
    package var bearerToken: SecretValue?
    /// `http.external_url`: ntfy's Click header.
    package var clickURL: URL?

    package init(
        name: String, url: URL, urlSecretName: String? = nil, format: WebhookFormat = .json,
        signingKey: WebhookSigningKey? = nil, timeout: Duration = .seconds(5), maxAge: Duration = .seconds(24 * 3600),
        kinds: Set<AlertKind> = Set(AlertKind.allCases), chatID: String? = nil, bearerToken: SecretValue? = nil,
        clickURL: URL? = nil
    ) {
        self.name = name
        self.url = url
        self.urlSecretName = urlSecretName
        self.format = format
        self.signingKey = signingKey
        self.timeout = timeout
        self.maxAge = maxAge
        self.kinds = kinds
        self.chatID = chatID
        self.bearerToken = bearerToken
        self.clickURL = clickURL
    }

    /// Resolves every webhook's secrets. A webhook whose `url_env` or `secret_env` secret is missing (or
    /// unusable) is left out, with a warning naming the webhook and the secret, never its value. A missing
    /// signing secret disables the webhook rather than sending unsigned.
    /// - Parameter externalURL: `http.external_url` (ntfy's Click).
    package static func resolve(
        _ settings: [WebhookSettings], secrets: SecretResolver, externalURL: URL? = nil
    ) -> (targets: [WebhookTarget], warnings: [String]) {
        var targets: [WebhookTarget] = []
        var warnings: [String] = []
        for hook in settings {
            let disabled = "webhook \"\(hook.name)\" is disabled:"
            let url: URL
            if let urlEnv = hook.urlEnv {
                guard let value = secrets.resolve(urlEnv) else {
                    warnings.append("\(disabled) its url_env secret \(urlEnv) is not set (environment or $CREDENTIALS_DIRECTORY)")
                    continue
                }
                guard let parsed = URL(string: value), isHTTP(parsed) else {
                    warnings.append("\(disabled) the value of its url_env secret \(urlEnv) is not an http(s) URL")
                    continue
                }
                guard parsed.user == nil, parsed.password == nil else {
                    warnings.append(
                        "\(disabled) the value of its url_env secret \(urlEnv) contains a user name or password (user:pass@host), "
                            + "which is never sent")
                    continue
                }
                url = parsed
            } else if let configured = hook.url {
                guard isHTTP(configured) else {
                    warnings.append("\(disabled) its url is not an http(s) URL")
                    continue
                }
                guard configured.user == nil, configured.password == nil else {
                    warnings.append("\(disabled) its url contains a user name or password (user:pass@host), which is never sent")
                    continue
                }
                url = configured
            } else {
                warnings.append("\(disabled) it has neither url nor url_env")
                continue
            }
            var key: WebhookSigningKey?
            if let secretEnv = hook.secretEnv {
                guard let secret = secrets.resolve(secretEnv) else {
                    warnings.append(
                        "\(disabled) its secret_env secret \(secretEnv) is not set (environment or $CREDENTIALS_DIRECTORY); not sending unsigned")
                    continue
                }
                do {
                    key = try WebhookSigningKey(secret: secret)
                } catch {
                    warnings.append("\(disabled) its secret_env secret \(secretEnv) starts with whsec_ but the rest is not base64")
                    continue
                }
                if let key, key.byteCount < WebhookSigningKey.recommendedMinimumBytes {
                    warnings.append(
                        "webhook \"\(hook.name)\": signing secret \(secretEnv) is \(key.byteCount) bytes; Standard Webhooks asks for at least \(WebhookSigningKey.recommendedMinimumBytes)")
                }
            }
            if hook.format == .telegram, (hook.chatID ?? "").isEmpty {
                warnings.append("\(disabled) format telegram needs chat_id")
                continue
            }
            var token: SecretValue?
            if let tokenEnv = hook.tokenEnv {
                guard let value = secrets.resolve(tokenEnv) else {
                    warnings.append("\(disabled) its token_env secret \(tokenEnv) is not set (environment or $CREDENTIALS_DIRECTORY)")
                    continue
                }
                guard value.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else {
                    warnings.append("\(disabled) the value of its token_env secret \(tokenEnv) is not a printable ASCII token")
                    continue
                }
                token = SecretValue(value)
            }
            targets.append(
                WebhookTarget(
                    name: hook.name, url: url, urlSecretName: hook.urlEnv, format: hook.format, signingKey: key,
                    timeout: hook.timeout, maxAge: hook.maxAge, kinds: hook.kinds, chatID: hook.chatID, bearerToken: token,
                    clickURL: hook.format == .ntfy ? externalURL : nil))
        }
        return (targets, warnings)
    }

    private static func isHTTP(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return !(url.host ?? "").isEmpty
    }

    /// `text` with the URL, its path and its query replaced by `<redacted>`, for error text that might quote
    /// them (a receiver's error page, a transport error). Applied to every webhook, not only `url_env` ones:
    /// a token can hide in a plain `url` too. Logs name webhooks, never URLs.
    /// Case-insensitive; a path or query shorter than `SecretScrubber.minimumLength` (`/hook`) is no secret and stays.
    package func redact(_ text: String) -> String {
        var secrets = [url.absoluteString]
        if let query = url.query, !query.isEmpty { secrets.append(query) }
        for path in [url.path, url.path(percentEncoded: true)] where path.count > 1 { secrets.append(path) }
        if let bearerToken { secrets.append(bearerToken.value) }
        return SecretScrubber.scrub(text, secrets: secrets)
    }
}
