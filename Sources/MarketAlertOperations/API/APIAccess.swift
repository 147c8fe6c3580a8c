import Crypto
import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// Who may change state through the API, and where the server listens. Updated at start and on every reload
/// (the token may change with the secret); read by every request.
///
/// With `token_env` set, POST and DELETE need `Authorization: Bearer <token>`; the comparison is of SHA-256
/// digests in constant time (neither the token's length nor a prefix leaks through timing). Neither the
/// token nor the header is ever logged.
package final class APIAccess: Sendable {
    package enum Decision: Sendable, Equatable {
        case allowed
        /// No or a wrong bearer token (401).
        case unauthorized
        /// `token_env` is set but the secret could not be read: nothing may change (503).
        case tokenUnavailable(String)
        /// Too many wrong tokens from this client lately: the token is not even looked at (429).
        case throttled(retryAfter: Int)
    }

    /// Wrong tokens a client may send at once, and how many more it earns a second (a token bucket per
    /// address): a guesser gets one try a second instead of thousands, the operator's right token from
    /// another address is never held up.
    package static let failureBurst = 5.0
    package static let failuresPerSecond = 1.0
    /// A token shorter than this is warned about at start and on reload.
    package static let minimumTokenLength = 8

    private struct Bucket {
        var tokens: Double
        var at: Date
    }

    private struct State {
        var tokenEnv: String?
        var tokenDigest: SHA256.Digest?
        var listen: String?
        var failures: [String: Bucket] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Applies `settings.http` with the token resolved from `secrets`; returns a warning when `token_env` is
    /// set but unresolvable (the daemon runs, the changing endpoints refuse).
    @discardableResult
    package func configure(_ http: HTTPSettings?, secrets: SecretResolver) -> String? {
        let tokenEnv = http?.tokenEnv
        let token = tokenEnv.flatMap { secrets.resolve($0) }
        let digest = token.map { SHA256.hash(data: Data($0.utf8)) }
        state.withLock {
            $0.tokenEnv = tokenEnv
            $0.tokenDigest = digest
        }
        guard let tokenEnv else { return nil }
        guard let token else {
            return "http.token_env: the secret \(tokenEnv) is not set (environment or $CREDENTIALS_DIRECTORY); silences cannot be changed"
        }
        if token.count < Self.minimumTokenLength {
            return "http.token_env: the secret \(tokenEnv) is \(token.count) characters long; use at least \(Self.minimumTokenLength) "
                + "(e.g. openssl rand -hex 16)"
        }
        return nil
    }

    /// Whether a request with this `Authorization` header, from `client` (its address), may change state at
    /// `now`. Each wrong or missing token costs the client one of its `failureBurst`; with none left the
    /// answer is `throttled` until it has earned one back.
    package func authorize(_ authorization: String?, client: String? = nil, now: Date = Date()) -> Decision {
        let (tokenEnv, expected) = state.withLock { ($0.tokenEnv, $0.tokenDigest) }
        guard let tokenEnv else { return .allowed }
        guard let expected else { return .tokenUnavailable(tokenEnv) }
        let client = client ?? "unknown"
        let available = state.withLock { state -> Double in
            guard var bucket = state.failures[client] else { return Self.failureBurst }
            bucket.tokens = min(Self.failureBurst, bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * Self.failuresPerSecond)
            bucket.at = now
            state.failures[client] = bucket
            return bucket.tokens
        }
        guard available >= 1 else { return .throttled(retryAfter: Int(((1 - available) / Self.failuresPerSecond).rounded(.up))) }
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer ",
            Self.constantTimeEqual(SHA256.hash(data: Data(authorization.dropFirst(7).trimmingCharacters(in: .whitespaces).utf8)), expected)
        else {
            state.withLock { state in
                if state.failures.count > 4096 {  // forget clients whose buckets have refilled
                    state.failures = state.failures.filter { now.timeIntervalSince($0.value.at) * Self.failuresPerSecond + $0.value.tokens < Self.failureBurst }
                }
                var bucket = state.failures[client] ?? Bucket(tokens: Self.failureBurst, at: now)
                bucket.tokens -= 1
                state.failures[client] = bucket
            }
            return .unauthorized
        }
        return .allowed
    }

    package static func constantTimeEqual(_ a: SHA256.Digest, _ b: SHA256.Digest) -> Bool {
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// The address the server is bound to (with the real port when `listen` asked for 0).
    package var listen: String? { state.withLock { $0.listen } }

    package func setListen(_ listen: String?) { state.withLock { $0.listen = listen } }
}
