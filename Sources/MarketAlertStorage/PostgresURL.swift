import Foundation
import MarketAlertKit
import NIOSSL
import PostgresNIO

/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`, the form libpq and
/// every PostgreSQL host documents. The URL is a secret (it carries the password): `redacted` is what logs show.
package struct PostgresURL: Sendable, Equatable {
    package enum TLSMode: String, Sendable { case disable, prefer, require }

    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String?
    package var tls: TLSMode

    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
    }

    /// Parses the URL; the error never repeats the URL (nor its password).
    package init(_ text: String) throws(Invalid) {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespacesAndNewlines)),
              let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else { throw Invalid(description: "expected postgres://user:password@host:port/database") }
        guard let host = components.host, !host.isEmpty else { throw Invalid(description: "the database URL has no host") }
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            throw Invalid(description: "the database URL has no user name")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.user = user
        self.password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = path.isEmpty ? nil : path.removingPercentEncoding
        let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer"
        switch mode {
        case "disable", "allow": tls = .disable
        case "prefer": tls = .prefer
        case "require", "verify-ca", "verify-full": tls = .require
        default: throw Invalid(description: "sslmode \"\(mode)\" is not one of disable, prefer, require")
        }
    }

    /// For logs and `check-config`: no password.
    package var redacted: String {
        "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database ?? "")"
    }

    package func clientConfiguration() throws -> PostgresClient.Configuration {
        let tlsConfiguration: PostgresClient.Configuration.TLS = switch tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tlsConfiguration)
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.maximumConnections = 8
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(15))
        return configuration
    }
}
