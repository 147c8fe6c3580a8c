import Foundation

extension APIDocuments {
    /// v3 `/api/v1/status` `rules`: a rule with `assets: all` and the assets it watches now (sorted).
    package struct RuleAssets: Encodable, Equatable {
        package var name: String
        package var assets: [String]

        /// The entries for `rules` (nil when no rule has `assets: all`, so the key is absent as in v2).
        package static func rules(_ rules: [(name: String, assets: [String])]) -> [RuleAssets]? {
            rules.isEmpty ? nil : rules.map { RuleAssets(name: $0.name, assets: $0.assets) }
        }
    }
}
