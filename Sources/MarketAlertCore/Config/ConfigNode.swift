/// Where a value stands in the config file (1-based), when the YAML parser reports it.
package struct ConfigMark: Sendable, Equatable {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// A parsed YAML document, reduced to what the strict schema needs. The YAML library is an adapter concern
/// (MarketAlertIO converts its nodes into this), so the schema and its validation stay pure and testable.
package indirect enum ConfigNode: Sendable, Equatable {
    /// A scalar with its text; `quoted` is true for '…' and "…" scalars (always strings in YAML).
    case scalar(String, quoted: Bool, mark: ConfigMark?)
    case mapping([ConfigEntry], mark: ConfigMark?)
    case sequence([ConfigNode], mark: ConfigMark?)

    package var mark: ConfigMark? {
        switch self {
        case .scalar(_, _, let mark), .mapping(_, let mark), .sequence(_, let mark): mark
        }
    }

    /// A plain `~`, `null` or empty scalar.
    package var isNull: Bool {
        if case .scalar(let text, false, _) = self { return ["", "~", "null", "Null", "NULL"].contains(text) }
        return false
    }

    /// How the value reads in an error message: scalars quoted, collections by their kind.
    package var shortDescription: String {
        switch self {
        case .scalar(let text, _, _): "\"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }
}

package struct ConfigEntry: Sendable, Equatable {
    package var key: String
    package var value: ConfigNode
    package var keyMark: ConfigMark?

    package init(key: String, value: ConfigNode, keyMark: ConfigMark?) {
        self.key = key
        self.value = value
        self.keyMark = keyMark
    }
}
