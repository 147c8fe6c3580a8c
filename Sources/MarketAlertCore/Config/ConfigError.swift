/// One problem in a config file, named by its key path (`premium.rules[1].levels[0].pct`).
package struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    package enum Severity: String, Sendable { case error, warning }

    package var path: String
    package var message: String
    package var line: Int?
    package var severity: Severity

    package init(path: String, message: String, line: Int? = nil, severity: Severity = .error) {
        self.path = path
        self.message = message
        self.line = line
        self.severity = severity
    }

    package var description: String {
        let location = line.map { " (line \($0))" } ?? ""
        let prefix = severity == .warning ? "warning: " : ""
        return "\(prefix)\(path.isEmpty ? "<root>" : path): \(message)\(location)"
    }
}

/// Every problem found in a config file; thrown when at least one is an error.
package struct ConfigError: Error, Sendable, CustomStringConvertible {
    package var issues: [ConfigIssue]

    package init(issues: [ConfigIssue]) { self.issues = issues }

    package var description: String { issues.map(\.description).joined(separator: "\n") }
}
