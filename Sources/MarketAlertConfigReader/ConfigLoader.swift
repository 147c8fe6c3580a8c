import Foundation
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit
import Yams

/// Reads `marketalertd.yaml` with Yams into the strict schema of `Settings`.
package enum ConfigLoader {
    /// Loads and validates a config file (a regular file, a pipe or `/dev/stdin`); throws `ConfigError` listing
    /// every problem, or saying what is wrong with the path.
    package static func load(path: String) throws(ConfigError) -> (settings: Settings, warnings: [ConfigIssue]) {
        try parse(yaml: ConfigFileReader.read(path: path))
    }

    /// Parses config text. Files over `YAMLBudget.maxBytes`, and YAML whose aliases expand past
    /// `YAMLBudget`'s limits, are rejected before any tree is built.
    package static func parse(yaml: String) throws(ConfigError) -> (settings: Settings, warnings: [ConfigIssue]) {
        if yaml.utf8.count > YAMLBudget.maxBytes {
            throw ConfigError(issues: [ConfigIssue(
                path: "", message: "the config is \(yaml.utf8.count) bytes; a config file may be at most \(YAMLBudget.maxBytes) bytes")])
        }
        if let issue = YAMLBudget.check(yaml) { throw ConfigError(issues: [issue]) }
        let node: Yams.Node?
        do {
            node = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw ConfigError(issues: [ConfigIssue(path: "", message: "not valid YAML: \(describe(error))", line: line(of: error))])
        } catch {
            throw ConfigError(issues: [ConfigIssue(path: "", message: "not valid YAML: \(error)")])
        }
        guard let node else {
            throw ConfigError(issues: [ConfigIssue(path: "", message: "the file is empty")])
        }
        return try Settings.parse(convert(node), catalog: ExchangeRegistry.standard.catalog)
    }

    /// Yams' node tree → the schema's `ConfigNode` (keys as strings, scalars with quoting and position).
    package static func convert(_ node: Yams.Node) -> ConfigNode {
        switch node {
        case .scalar(let scalar):
            let quoted = scalar.style == .singleQuoted || scalar.style == .doubleQuoted
                || scalar.style == .literal || scalar.style == .folded
            return .scalar(scalar.string, quoted: quoted, mark: mark(node))
        case .mapping(let mapping):
            let entries = mapping.map { key, value in
                ConfigEntry(key: key.string ?? "\(key)", value: convert(value), keyMark: mark(key))
            }
            return .mapping(entries, mark: mark(node))
        case .sequence(let sequence):
            return .sequence(sequence.map(convert), mark: mark(node))
        case .alias:
            return .scalar("*alias", quoted: true, mark: mark(node))
        }
    }

    private static func mark(_ node: Yams.Node) -> ConfigMark? {
        node.mark.map { ConfigMark(line: $0.line, column: $0.column) }
    }

    private static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, _, _), .parser(let context, let problem, _, _):
            return [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
        default:
            return "\(error)"
        }
    }

    private static func line(of error: YamlError) -> Int? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _): mark.line
        default: nil
        }
    }
}
