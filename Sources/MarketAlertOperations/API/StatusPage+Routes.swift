import Foundation
import MarketAlertCore
import MarketAlertKit

extension StatusPage {
    /// v3: the routes in order (what each matches, where it sends, its windows and whether they mute it now)
    /// and the inhibit rules. Shown only when `routes:` or `inhibit:` is configured.
    static func routeSection(_ html: HTMLBuffer, _ routing: APIDocuments.Routing?) {
        guard let routing else { return }
        html.section("routes", "Routes", count: routing.routes.count)
        html.table(["#", "Match", "Sinks", "Windows", "Now"])
        for (index, route) in routing.routes.enumerated() {
            html.raw("<tr data-route=\"\(index)\" data-muted=\"\(route.mutedNow)\">")
            var windows = route.muteTimeIntervals.map { "mute " + $0 } + route.activeTimeIntervals.map { "active " + $0 }
            if route.sendAfterMute { windows.append("send after mute") }
            html.cell("#", String(index + 1), numeric: true).cell("Match", route.match.text)
            html.cell("Sinks", route.sinks.joined(separator: ", ") + (route.continue ? " (continue)" : ""))
            html.cell("Windows", windows.isEmpty ? "always" : windows.joined(separator: ", "))
            html.cell("Now", route.mutedNow ? "muted" : "sending")
            html.raw("</tr>")
        }
        for rule in routing.inhibit {
            html.raw("<tr data-inhibit=\"true\">")
            html.cell("#", "inhibit").cell("Match", rule.target.text).cell("Sinks", "none while " + rule.source.text + " fires")
            html.cell("Windows", rule.equal.isEmpty ? "any" : "same " + rule.equal.joined(separator: ", ")).cell("Now", "")
            html.raw("</tr>")
        }
        html.endTable()
    }
}
