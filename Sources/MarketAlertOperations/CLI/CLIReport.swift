import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage

/// Human views of the API's JSON for `marketalertd status`, `alerts` and `silence list`.
package enum CLIReport {
    package struct Malformed: Error, CustomStringConvertible {
        package var description: String
    }

    private static func object(_ data: Data) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw Malformed(description: "the daemon's answer is not a JSON object")
        }
        return object
    }

    private static func string(_ value: Any?) -> String {
        switch value {
        case let text as String: text
        case let number as Int: String(number)
        case let number as Double: String(number)
        default: "–"
        }
    }

    private static func flag(_ value: Any?) -> String { (value as? Bool) == true ? "yes" : "no" }

    /// `2026-03-10T11:00:00Z` → `2026-03-10 11:00:00Z`, shorter in a table.
    private static func time(_ value: Any?) -> String {
        guard let text = value as? String else { return "–" }
        return text.replacingOccurrences(of: "T", with: " ")
    }

    package static func status(_ data: Data) throws -> String {
        let status = try object(data)
        var out = ["marketalertd \(string(status["version"])) · \(string(status["role"])) · started \(time(status["started_at"]))"]
        out.append(string(status["status"]))
        if status["ready"] as? Bool == false, let awaiting = status["awaiting"] as? [String], !awaiting.isEmpty {
            out.append("not ready: waiting for \(awaiting.joined(separator: ", "))")
        }
        var sources = TextTable(["SOURCE", "KIND", "UP", "TRANSPORT", "LAST SUCCESS", "FAILURES", "LAST ERROR"])
        for source in status["sources"] as? [[String: Any]] ?? [] {
            sources.add([
                string(source["name"]), string(source["kind"]), flag(source["up"]), string(source["transport"]),
                time(source["last_success"]), string(source["consecutive_failures"]), string(source["last_error"]),
            ])
        }
        if !sources.isEmpty { out += ["", sources.render()] }
        var premium = TextTable(["RULE", "ASSET", "PREMIUM", "HIGH", "LOW", "LEVEL"])
        for row in status["premium"] as? [[String: Any]] ?? [] {
            let pct = (row["pct"] as? NSNumber).map { NumberText.percent($0.doubleValue) + "%" } ?? "–"
            premium.add([string(row["rule"]), string(row["asset"]), pct, side(row["high"]), side(row["low"]), string(row["firing_level"])])
        }
        if !premium.isEmpty { out += ["", premium.render()] }
        var fx = TextTable(["PAIR", "RATE", "PROVIDER", "QUOTED", "AGE"])
        for rate in status["fx"] as? [[String: Any]] ?? [] {
            fx.add([string(rate["pair"]), string(rate["rate"]), string(rate["provider"]), time(rate["at"]), string(rate["age_seconds"]) + "s"])
        }
        if !fx.isEmpty { out += ["", fx.render()] }
        var ipo = TextTable(["IPO", "NAME", "STATE", "SUBSCRIPTION", "ZONE"])
        for row in status["ipo"] as? [[String: Any]] ?? [] {
            ipo.add([
                "\(string(row["source"]))/\(string(row["code"]))", string(row["name"]), string(row["state"]),
                "\(string(row["subscription_start"])) – \(string(row["subscription_end"]))", string(row["time_zone"]),
            ])
        }
        if !ipo.isEmpty { out += ["", ipo.render()] }
        return out.joined(separator: "\n")
    }

    private static func side(_ value: Any?) -> String {
        guard let quote = value as? [String: Any] else { return "–" }
        let price = (quote["price"] as? Double).map { NumberText.price(Decimal($0)) } ?? string(quote["price"])
        return "\(string(quote["exchange"])) \(price) \(string(quote["quote"]))"
    }

    package static func alerts(_ data: Data) throws -> String {
        let alerts = try object(data)["alerts"] as? [[String: Any]] ?? []
        guard !alerts.isEmpty else { return "nothing is firing" }
        var table = TextTable(["KEY", "SEVERITY", "SINCE", "LAST NOTIFIED", "SILENCED BY", "SUMMARY"])
        for alert in alerts {
            table.add([
                string(alert["key"]), string(alert["severity"]), time(alert["since"]), time(alert["last_notified_at"]),
                string(alert["silenced_by"]), string(alert["summary"]),
            ])
        }
        return table.render()
    }

    package static func silences(_ data: Data) throws -> String {
        let silences = try object(data)["silences"] as? [[String: Any]] ?? []
        guard !silences.isEmpty else { return "no silences" }
        var table = TextTable(["ID", "STATE", "MATCHERS", "STARTS", "ENDS", "BY", "COMMENT"])
        for silence in silences {
            let matchers = (silence["matchers"] as? [String: Any] ?? [:]).sorted { order($0.key) < order($1.key) }
                .map { "\($0.key)=\(string($0.value))" }.joined(separator: " ")
            let ends = (silence["ends_at"] as? String).flatMap(Timestamp.parseRFC3339)
            let state = silence["active"] as? Bool == true ? "active" : (ends.map { $0 > Date() } ?? false) ? "pending" : "expired"
            table.add([
                string(silence["id"]), state, matchers, time(silence["starts_at"]), time(silence["ends_at"]), string(silence["created_by"]),
                string(silence["comment"]),
            ])
        }
        return table.render()
    }

    private static func order(_ key: String) -> Int { ["key", "kind", "rule", "asset", "severity"].firstIndex(of: key) ?? 9 }

    /// The body of `silence add`: `--match name=value` pairs, `--for` or `--until`, comment and author.
    package static func silenceBody(
        matches: [String], duration: String?, until: String?, comment: String, author: String
    ) throws -> Data {
        var matchers: [String: String] = [:]
        for match in matches {
            guard let equals = match.firstIndex(of: "="), equals != match.startIndex else {
                throw Malformed(description: "--match \(match): expected NAME=VALUE, e.g. key=premium/kimchi/*")
            }
            matchers[String(match[..<equals])] = String(match[match.index(after: equals)...])
        }
        var body: [String: Any] = ["matchers": matchers, "comment": comment, "created_by": author]
        if let duration { body["duration"] = duration }
        if let until { body["ends_at"] = until }
        return try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
