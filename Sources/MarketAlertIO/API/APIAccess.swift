import Crypto
import Foundation
import MarketAlertCore
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
    }

    private struct State {
        var tokenEnv: String?
        var tokenDigest: SHA256.Digest?
        var listen: String?
    }

    private let state = Mutex(State())

    package init() {}

    /// Applies `settings.http` with the token resolved from `secrets`; returns a warning when `token_env` is
    /// set but unresolvable (the daemon runs, the changing endpoints refuse).
    @discardableResult
    package func configure(_ http: HTTPSettings?, secrets: SecretResolver) -> String? {
        let tokenEnv = http?.tokenEnv
        let digest = tokenEnv.flatMap { secrets.resolve($0) }.map { SHA256.hash(data: Data($0.utf8)) }
        state.withLock {
            $0.tokenEnv = tokenEnv
            $0.tokenDigest = digest
        }
        guard let tokenEnv, digest == nil else { return nil }
        return "http.token_env: the secret \(tokenEnv) is not set (environment or $CREDENTIALS_DIRECTORY); silences cannot be changed"
    }

    /// Whether a request with this `Authorization` header may change state.
    package func authorize(_ authorization: String?) -> Decision {
        let (tokenEnv, expected) = state.withLock { ($0.tokenEnv, $0.tokenDigest) }
        guard let tokenEnv else { return .allowed }
        guard let expected else { return .tokenUnavailable(tokenEnv) }
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return .unauthorized }
        let presented = SHA256.hash(data: Data(authorization.dropFirst(7).trimmingCharacters(in: .whitespaces).utf8))
        return Self.constantTimeEqual(presented, expected) ? .allowed : .unauthorized
    }

    static func constantTimeEqual(_ a: SHA256.Digest, _ b: SHA256.Digest) -> Bool {
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// The address the server is bound to (with the real port when `listen` asked for 0).
    package var listen: String? { state.withLock { $0.listen } }

    func setListen(_ listen: String?) { state.withLock { $0.listen = listen } }
}
