import Foundation

/// Collects every problem found while reading a config tree, so one run reports all of them.
package final class ConfigDiagnostics {
    package private(set) var issues: [ConfigIssue] = []

    package init() {}

    package func error(_ path: String, _ message: String, at mark: ConfigMark?) {
        issues.append(ConfigIssue(path: path, message: message, line: mark?.line))
    }

    package func warning(_ path: String, _ message: String, at mark: ConfigMark? = nil) {
        issues.append(ConfigIssue(path: path, message: message, line: mark?.line, severity: .warning))
    }

    package var hasErrors: Bool { issues.contains { $0.severity == .error } }
}

/// A strict view of one YAML mapping: typed getters that record a key-path error for a wrong type, and
/// `finish()` that reports every key nobody asked for as unknown.
package final class ConfigTable {
    package let path: String
    package let mark: ConfigMark?
    private let entries: [ConfigEntry]
    private var used: Set<String> = []
    private let diagnostics: ConfigDiagnostics

    package init?(_ node: ConfigNode, path: String, diagnostics: ConfigDiagnostics) {
        self.path = path
        self.diagnostics = diagnostics
        self.mark = node.mark
        switch node {
        case .mapping(let entries, _):
            self.entries = entries
            var seen: Set<String> = []
            for entry in entries where !seen.insert(entry.key).inserted {
                diagnostics.error(Self.join(path, entry.key), "duplicate key", at: entry.keyMark)
            }
        default:
            if node.isNull {
                self.entries = []
            } else {
                diagnostics.error(path, "expected a mapping, got \(node.shortDescription)", at: node.mark)
                return nil
            }
        }
    }

    package static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    package func keyPath(_ key: String) -> String { Self.join(path, key) }

    /// All keys in file order (for maps keyed by user data, such as `exchanges:`); marks them used.
    package var allEntries: [ConfigEntry] {
        for entry in entries { used.insert(entry.key) }
        return entries
    }

    /// The raw node for `key`, or nil when absent or null.
    package func node(_ key: String) -> ConfigNode? {
        used.insert(key)
        guard let node = entries.first(where: { $0.key == key })?.value, !node.isNull else { return nil }
        return node
    }

    package func has(_ key: String) -> Bool { node(key) != nil }

    package func required<T>(_ key: String, _ read: (String) -> T?) -> T? {
        if node(key) == nil {
            diagnostics.error(keyPath(key), "required key is missing", at: mark)
            return nil
        }
        return read(key)
    }

    package func string(_ key: String) -> String? {
        guard let node = node(key) else { return nil }
        return ConfigValue.string(node, path: keyPath(key), diagnostics)
    }

    package func number(_ key: String) -> Double? {
        guard let node = node(key) else { return nil }
        return ConfigValue.number(node, path: keyPath(key), diagnostics)
    }

    package func integer(_ key: String) -> Int? {
        guard let node = node(key) else { return nil }
        guard let value = ConfigValue.number(node, path: keyPath(key), diagnostics) else { return nil }
        guard let int = Int(exactly: value) else {
            diagnostics.error(keyPath(key), "expected a whole number, got \(node.shortDescription)", at: node.mark)
            return nil
        }
        return int
    }

    package func bool(_ key: String) -> Bool? {
        guard let node = node(key) else { return nil }
        return ConfigValue.bool(node, path: keyPath(key), diagnostics)
    }

    package func duration(_ key: String) -> Duration? {
        guard let node = node(key) else { return nil }
        return ConfigValue.duration(node, path: keyPath(key), diagnostics)
    }

    package func table(_ key: String) -> ConfigTable? {
        guard let node = node(key) else { return nil }
        return ConfigTable(node, path: keyPath(key), diagnostics: diagnostics)
    }

    /// A list; each element comes with its own key path (`rules[2]`).
    package func list(_ key: String) -> [(node: ConfigNode, path: String)]? {
        guard let node = node(key) else { return nil }
        guard case .sequence(let items, _) = node else {
            diagnostics.error(keyPath(key), "expected a list, got \(node.shortDescription)", at: node.mark)
            return nil
        }
        return items.enumerated().map { (node: $0.element, path: "\(keyPath(key))[\($0.offset)]") }
    }

    package func stringList(_ key: String) -> [String]? {
        guard let items = list(key) else { return nil }
        return items.compactMap { ConfigValue.string($0.node, path: $0.path, diagnostics) }
    }

    package func error(_ key: String, _ message: String) {
        let node = entries.first(where: { $0.key == key })
        diagnostics.error(key.isEmpty ? path : keyPath(key), message, at: node?.value.mark ?? node?.keyMark ?? mark)
    }

    package func warning(_ key: String, _ message: String) {
        let node = entries.first(where: { $0.key == key })
        diagnostics.warning(key.isEmpty ? path : keyPath(key), message, at: node?.value.mark ?? node?.keyMark ?? mark)
    }

    /// Reports keys that were never read. Call after reading every known key.
    package func finish() {
        for entry in entries where !used.contains(entry.key) {
            diagnostics.error(keyPath(entry.key), "unknown key", at: entry.keyMark)
        }
    }
}

/// Scalar conversions with key-path errors.
package enum ConfigValue {
    package static func string(_ node: ConfigNode, path: String, _ diagnostics: ConfigDiagnostics) -> String? {
        guard case .scalar(let text, _, _) = node else {
            diagnostics.error(path, "expected a string, got \(node.shortDescription)", at: node.mark)
            return nil
        }
        return text
    }

    package static func number(_ node: ConfigNode, path: String, _ diagnostics: ConfigDiagnostics) -> Double? {
        guard case .scalar(let text, let quoted, _) = node, !quoted, let parsed = DecimalText.parse(Substring(text)) else {
            diagnostics.error(path, "expected a number, got \(node.shortDescription)", at: node.mark)
            return nil
        }
        return parsed.double
    }

    package static func bool(_ node: ConfigNode, path: String, _ diagnostics: ConfigDiagnostics) -> Bool? {
        if case .scalar(let text, false, _) = node {
            switch text {
            case "true", "True", "TRUE", "yes", "on": return true
            case "false", "False", "FALSE", "no", "off": return false
            default: break
            }
        }
        diagnostics.error(path, "expected true or false, got \(node.shortDescription)", at: node.mark)
        return nil
    }

    package static func duration(_ node: ConfigNode, path: String, _ diagnostics: ConfigDiagnostics) -> Duration? {
        guard case .scalar(let text, _, _) = node, let duration = DurationText.parse(text) else {
            diagnostics.error(
                path, "expected a duration such as \"250ms\", \"5s\", \"10m\", \"1h\" or \"1d\", got \(node.shortDescription)",
                at: node.mark)
            return nil
        }
        return duration
    }

    /// A value from a fixed set, e.g. `basis: last | mid | bidask`.
    package static func oneOf<T: RawRepresentable & CaseIterable>(
        _ node: ConfigNode, path: String, _ diagnostics: ConfigDiagnostics, as: T.Type
    ) -> T? where T.RawValue == String {
        guard let text = string(node, path: path, diagnostics) else { return nil }
        guard let value = T(rawValue: text) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            diagnostics.error(path, "expected one of \(allowed), got \"\(text)\"", at: node.mark)
            return nil
        }
        return value
    }
}

extension ConfigTable {
    package func oneOf<T: RawRepresentable & CaseIterable>(_ key: String, as type: T.Type) -> T? where T.RawValue == String {
        guard let node = node(key) else { return nil }
        return ConfigValue.oneOf(node, path: keyPath(key), diagnostics, as: type)
    }

    package func oneOfList<T: RawRepresentable & CaseIterable>(_ key: String, as type: T.Type) -> [T]? where T.RawValue == String {
        guard let items = list(key) else { return nil }
        return items.compactMap { ConfigValue.oneOf($0.node, path: $0.path, diagnostics, as: type) }
    }

    /// An http(s) URL, e.g. `base_url`.
    /// An http(s) URL with a host. A URL with a user name or password (`user:pass@`) is an error: the
    /// credentials would never be sent, and the message never echoes them (nor any text with an `@`).
    package func url(_ key: String) -> URL? {
        guard let text = string(key) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil
        else {
            error(key, text.contains("@") ? "expected an http(s) URL" : "expected an http(s) URL, got \"\(text)\"")
            return nil
        }
        if url.user != nil || url.password != nil {
            error(key, "must not contain a user name or password (user:pass@host): they are never sent; "
                + "put a token the receiver expects in the URL's path or query, or use url_env")
            return nil
        }
        return url
    }

    package var diagnosticsSink: ConfigDiagnostics { diagnostics }
}
