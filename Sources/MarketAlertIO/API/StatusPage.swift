import Foundation
import MarketAlertCore

/// The status page `/`: one server-rendered HTML document (placeholder until the full page lands).
enum StatusPage {
    static func render(
        _ view: EngineStatus, silences: [Silence], displayTimeZones: [String], version: String, startedAt: Date, listen: String?
    ) -> String {
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>marketalertd</title></head><body><p>"
            + HTML.escape(view.statusLine) + "</p></body></html>"
    }
}

/// HTML text escaping.
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
