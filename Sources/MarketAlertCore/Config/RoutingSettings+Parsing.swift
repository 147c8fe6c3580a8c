import Foundation

extension RoutingSettings {
    /// Reads v3 `routes`, `time_intervals` and `inhibit` from the root table (each optional).
    mutating func read(_ root: ConfigTable) {
        for item in root.list("time_intervals") ?? [] {
            guard let table = ConfigTable(item.node, path: item.path, diagnostics: root.diagnosticsSink) else { continue }
            if let window = TimeWindow.read(table) {
                if timeIntervals[window.name] != nil { table.error("name", "duplicate time interval name \"\(window.name)\"") }
                timeIntervals[window.name] = window
            }
            table.finish()
        }
        for item in root.list("routes") ?? [] {
            guard let table = ConfigTable(item.node, path: item.path, diagnostics: root.diagnosticsSink) else { continue }
            if let route = Route.read(table) { routes.append(route) }
            table.finish()
        }
        for item in root.list("inhibit") ?? [] {
            guard let table = ConfigTable(item.node, path: item.path, diagnostics: root.diagnosticsSink) else { continue }
            let source = table.table("source").map { NotificationMatch.read($0) }
            let target = table.table("target").map { NotificationMatch.read($0) }
            if source == nil { table.error("source", "an inhibit rule needs source") }
            if target == nil { table.error("target", "an inhibit rule needs target") }
            let equal = table.oneOfList("equal", as: InhibitField.self) ?? []
            if let source, let target { inhibit.append(InhibitRule(source: source, target: target, equal: equal)) }
            table.finish()
        }
    }
}

extension Route {
    static func read(_ table: ConfigTable) -> Route? {
        let match = table.table("match").map { NotificationMatch.read($0) } ?? NotificationMatch()
        guard let sinks = table.required("sinks", table.stringList) else { return nil }
        if sinks.isEmpty { table.error("sinks", "must name at least one sink") }
        var route = Route(match: match, sinks: sinks)
        route.continue = table.bool("continue") ?? false
        route.muteTimeIntervals = table.stringList("mute_time_intervals") ?? []
        route.activeTimeIntervals = table.stringList("active_time_intervals") ?? []
        route.sendAfterMute = table.bool("send_after_mute") ?? false
        if route.sendAfterMute, route.muteTimeIntervals.isEmpty, route.activeTimeIntervals.isEmpty {
            table.warning("send_after_mute", "has no effect without mute_time_intervals or active_time_intervals")
        }
        return route
    }
}

extension NotificationMatch {
    static func read(_ table: ConfigTable) -> NotificationMatch {
        var match = NotificationMatch()
        match.kind = table.oneOf("kind", as: AlertKind.self)
        match.rule = table.string("rule")
        match.asset = table.string("asset")
        match.exchange = table.string("exchange")
        match.severity = table.oneOf("severity", as: Severity.self)
        match.status = table.string("status")
        match.key = table.string("key")
        table.finish()
        return match
    }
}

extension TimeWindow {
    /// One named interval: `name`, `location`, and either the entry fields themselves or Alertmanager's
    /// `time_intervals:` list of entries (ORed).
    static func read(_ table: ConfigTable) -> TimeWindow? {
        let name = table.required("name", table.string)
        var zone = TimeZone(identifier: "UTC") ?? .current
        if let id = table.string("location") {
            if let found = TimeZone(identifier: id) { zone = found } else { table.error("location", "unknown time zone \"\(id)\"") }
        }
        var entries: [TimeWindowEntry] = []
        if let list = table.list("time_intervals") {
            for item in list {
                guard let sub = ConfigTable(item.node, path: item.path, diagnostics: table.diagnosticsSink) else { continue }
                entries.append(TimeWindowEntry.read(sub))
                sub.finish()
            }
        } else {
            entries.append(TimeWindowEntry.read(table))
        }
        guard let name else { return nil }
        return TimeWindow(name: name, location: zone, entries: entries)
    }
}
