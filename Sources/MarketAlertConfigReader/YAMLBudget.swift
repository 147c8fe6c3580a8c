import CYaml
import Foundation
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit

/// Bounds on what a config file may expand to, checked on libyaml's event stream before Yams builds a tree.
///
/// YAML aliases reuse a node, so a few hundred bytes can stand for billions of nodes ("billion laughs"):
/// converting such a tree took 12 GB in `check-config`, and Yams' own duplicate-key check hashes alias keys
/// through every level. The scan counts each node as often as aliases repeat it, in O(events) time and
/// memory, and stops at the first limit crossed. A marketalertd config needs neither many aliases nor many
/// nodes: the limits are far above any real config.
package enum YAMLBudget {
    /// Largest config file read (1 MiB).
    package static let maxBytes = 1 << 20
    /// Alias uses (`*name`) per file.
    package static let maxAliases = 1_000
    /// Nodes after aliases are expanded (each scalar, list and mapping counts one; an alias counts the whole
    /// node it repeats).
    package static let maxExpandedNodes = 100_000

    /// The first limit `yaml` crosses, as an issue naming the key path and the limit; nil when within bounds.
    /// Syntax errors are left to the parser that follows (this returns nil for them).
    package static func check(
        _ yaml: String, maxAliases: Int = maxAliases, maxExpandedNodes: Int = maxExpandedNodes
    ) -> ConfigIssue? {
        var bytes = Array(yaml.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer -> ConfigIssue? in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return nil }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var scan = Scan(maxAliases: maxAliases, maxNodes: maxExpandedNodes)
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return nil }
                if let issue = scan.visit(event) { return issue }
            }
        }
    }

    /// The running count, the size of each anchored node, and where in the document the scan stands.
    private struct Scan {
        let maxAliases: Int
        let maxNodes: Int
        var aliases = 0
        var nodes = 0
        var anchorSizes: [String: Int] = [:]
        var frames: [Frame] = []

        struct Frame {
            var isMapping: Bool
            var anchor: String?
            /// Expanded nodes inside this collection, itself included.
            var size = 1
            /// Mapping: true while the next node is a key. Sequence: unused.
            var expectingKey = true
            /// The last key of a mapping, or the index of the next item of a sequence.
            var key = ""
            var index = 0
        }

        init(maxAliases: Int, maxNodes: Int) {
            self.maxAliases = maxAliases
            self.maxNodes = maxNodes
        }

        mutating func visit(_ event: yaml_event_t) -> ConfigIssue? {
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = Self.string(scalar.value, length: Int(scalar.length))
                return add(size: 1, anchor: Self.string(scalar.anchor), keyText: text, line: line)
            case YAML_ALIAS_EVENT:
                aliases += 1
                if aliases > maxAliases {
                    return issue("more than \(maxAliases) aliases (*name); a config needs far fewer", line: line)
                }
                let name = Self.string(event.data.alias.anchor) ?? ""
                return add(size: anchorSizes[name] ?? 1, anchor: nil, keyText: "*" + name, line: line)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                let isMapping = event.type == YAML_MAPPING_START_EVENT
                let anchor = isMapping ? Self.string(event.data.mapping_start.anchor) : Self.string(event.data.sequence_start.anchor)
                if let failure = count(1, line: line) { return failure }
                frames.append(Frame(isMapping: isMapping, anchor: anchor))
                return nil
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = frames.popLast() else { return nil }
                if let anchor = frame.anchor { anchorSizes[anchor] = frame.size }
                advance(size: frame.size, keyText: nil)
                return nil
            default:
                return nil
            }
        }

        /// A complete node (scalar or alias) of `size` expanded nodes.
        private mutating func add(size: Int, anchor: String?, keyText: String?, line: Int) -> ConfigIssue? {
            if let failure = count(size, line: line) { return failure }
            if let anchor { anchorSizes[anchor] = size }
            advance(size: size, keyText: keyText)
            return nil
        }

        private mutating func count(_ size: Int, line: Int) -> ConfigIssue? {
            nodes += size
            guard nodes > maxNodes else { return nil }
            return issue("expands to more than \(maxNodes) nodes (aliases repeat whole nodes); a config needs far fewer", line: line)
        }

        /// Adds a finished node to its parent and moves the parent's position on.
        private mutating func advance(size: Int, keyText: String?) {
            guard !frames.isEmpty else { return }
            frames[frames.count - 1].size += size
            if frames[frames.count - 1].isMapping {
                if frames[frames.count - 1].expectingKey { frames[frames.count - 1].key = keyText ?? "?" }
                frames[frames.count - 1].expectingKey.toggle()
            } else {
                frames[frames.count - 1].index += 1
            }
        }

        /// The key path of the node being read (`sinks.webhooks[0].url`).
        private var path: String {
            var path = ""
            for (position, frame) in frames.enumerated() {
                if frame.isMapping {
                    // The innermost mapping waiting for a key: the node is a key, not under one.
                    if frame.expectingKey, position == frames.count - 1 { break }
                    path += (path.isEmpty ? "" : ".") + frame.key
                } else {
                    path += "[\(frame.index)]"
                }
            }
            return path
        }

        private func issue(_ message: String, line: Int) -> ConfigIssue {
            ConfigIssue(path: path, message: "rejected: the YAML \(message)", line: line)
        }

        private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, length: Int? = nil) -> String? {
            guard let pointer else { return nil }
            let count = length ?? strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
            return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
        }
    }
}
