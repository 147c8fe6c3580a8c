import Foundation

extension Settings {
    /// Routes name sinks and time intervals that exist; a kind the config produces that no route can match,
    /// and a route after a catch-all that can never be reached, are warnings (their notifications still reach
    /// stdout and the journal).
    func validateRouting(_ root: ConfigTable) {
        let diagnostics = root.diagnosticsSink
        let sinkNames = Set(sinks.webhooks.map(\.name) + sinks.email.map(\.name))
        for (index, route) in routing.routes.enumerated() {
            let path = "routes[\(index)]"
            for (position, name) in route.sinks.enumerated() where !sinkNames.contains(name) {
                let known = sinkNames.isEmpty ? "none configured" : "known: \(sinkNames.sorted().joined(separator: ", "))"
                diagnostics.error("\(path).sinks[\(position)]", "unknown sink \"\(name)\" (\(known))", at: nil)
            }
            for (key, names) in [("mute_time_intervals", route.muteTimeIntervals), ("active_time_intervals", route.activeTimeIntervals)] {
                for (position, name) in names.enumerated() where routing.timeIntervals[name] == nil {
                    diagnostics.error("\(path).\(key)[\(position)]", "unknown time interval \"\(name)\"", at: nil)
                }
            }
        }
        if let unreachable = firstUnreachableRoute() {
            diagnostics.warning("routes[\(unreachable)]", "can never match: an earlier route matches everything without continue: true")
        }
        guard !routing.routes.isEmpty else { return }
        for kind in producedKinds where !routing.routes.contains(where: { $0.match.kind == nil || $0.match.kind == kind }) {
            diagnostics.warning(
                "routes", "no route matches kind \(kind.rawValue): its notifications reach only stdout and the journal")
        }
    }

    /// The index of the first route after a catch-all route that does not continue.
    private func firstUnreachableRoute() -> Int? {
        guard let catchAll = routing.routes.firstIndex(where: { $0.match == NotificationMatch() && !$0.continue }) else { return nil }
        let next = catchAll + 1
        return routing.routes.indices.contains(next) ? next : nil
    }

    /// The kinds of notification this configuration can produce.
    var producedKinds: [AlertKind] {
        var kinds: [AlertKind] = [.source]
        if !premium.rules.isEmpty { kinds.append(.premium) }
        if !ipo.sources.isEmpty { kinds.append(.ipo) }
        if !fx.alerts.isEmpty || !fx.tetherAlerts.isEmpty { kinds.append(.fx) }
        if digest != nil { kinds.append(.digest) }
        if transfers?.notify == true { kinds.append(.transfer) }
        if listings != nil { kinds.append(.listing) }
        return kinds
    }
}
