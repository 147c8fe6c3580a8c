import Foundation

/// Resolves `*_env` secrets: first the environment variable of that name, then the systemd credential
/// `$CREDENTIALS_DIRECTORY/<NAME>` (LoadCredential=). Values are never logged; errors name only the secret.
package struct SecretResolver: Sendable {
    private let environment: [String: String]

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The secret's value with surrounding whitespace and a trailing newline removed, or nil when unset or empty.
    package func resolve(_ name: String) -> String? {
        if let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
            return value
        }
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
              !name.contains("/"), name != "..", name != "."
        else { return nil }
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let value = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }
}
