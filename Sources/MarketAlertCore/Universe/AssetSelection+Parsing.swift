import Foundation

extension AssetSelection {
    /// Reads a rule's `assets` (a list, or v3 `all`) with `min_exchanges`, `exclude_assets` and
    /// `min_volume_24h`. Returns the fixed list (empty with `all`: filled by `WatchedAssets`), nil when
    /// `assets` is missing or unusable (the errors are reported).
    static func read(_ t: ConfigTable, selection: inout AssetSelection) -> [String]? {
        var exchangeCount = 0
        if case .sequence(let items, _) = t.node("exchanges") { exchangeCount = items.count }
        var assets: [String]?
        if case .scalar(let text, _, _) = t.node("assets") {
            if text == "all" {
                selection.all = true
                assets = []
            } else {
                t.error("assets", "expected a list of assets or all, got \"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\"")
            }
        } else {
            assets = t.required("assets", t.stringList)?.map { $0.uppercased() }
            if assets?.isEmpty == true { t.error("assets", "must list at least one asset") }
        }
        if let minimum = t.integer("min_exchanges") {
            if !selection.all { t.error("min_exchanges", "only assets: all counts exchanges; this rule lists its assets") }
            if minimum < 2 {
                t.error("min_exchanges", "must be at least 2 (a premium needs two markets), got \(minimum)")
            } else if exchangeCount >= 2, minimum > exchangeCount {
                t.error("min_exchanges", "\(minimum) can never be met: the rule has \(exchangeCount) exchanges")
            } else {
                selection.minExchanges = minimum
            }
        }
        if let excluded = t.stringList("exclude_assets") {
            if !selection.all { t.error("exclude_assets", "only assets: all excludes assets; this rule lists its assets") }
            selection.excludeAssets = Set(excluded.map { $0.uppercased() })
        }
        if let floor = t.number("min_volume_24h") {
            if floor.isFinite, floor >= 0 { selection.minVolume24h = floor } else {
                t.error("min_volume_24h", "must be a number of at least 0 (reference currency), got \(floor)")
            }
        }
        return assets
    }
}
