import MarketAlertCore

/// A tiny YAML-free way to build config trees in core tests (the Yams path is tested in MarketAlertIOTests).
enum Node {
    static func s(_ text: String, quoted: Bool = false, line: Int? = nil) -> ConfigNode {
        .scalar(text, quoted: quoted, mark: line.map { ConfigMark(line: $0, column: 1) })
    }

    static func map(_ entries: [(String, ConfigNode)]) -> ConfigNode {
        .mapping(entries.map { ConfigEntry(key: $0.0, value: $0.1, keyMark: nil) }, mark: nil)
    }

    static func list(_ items: [ConfigNode]) -> ConfigNode { .sequence(items, mark: nil) }
}
