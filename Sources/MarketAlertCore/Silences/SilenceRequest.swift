import Foundation

/// The body of `POST /api/v1/silences`, validated: `{"matchers": {"key": "premium/kimchi/*", "kind"?, "rule"?,
/// "asset"?, "severity"?}, "duration": "2h" | "ends_at": "RFC 3339", "starts_at"?: "RFC 3339", "comment": "...",
/// "created_by"?: "..."}`. Every problem names its field; unknown fields are refused.
package enum SilenceRequest {
    package struct Problem: Error, Sendable, Equatable {
        package var field: String?
        package var message: String

        package init(field: String?, _ message: String) {
            self.field = field
            self.message = message
        }
    }

    /// The longest a silence may last (a forgotten silence must not mute an alert for good).
    package static let maximumDuration: TimeInterval = 365 * 86_400
    static let maximumText = 1_000

    package static func parse(_ body: Data, now: Date, id: String) -> Result<Silence, Problem> {
        guard !body.isEmpty else { return .failure(Problem(field: nil, "the body is empty; expected a JSON object")) }
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return .failure(Problem(field: nil, "the body is not a JSON object"))
        }
        do throws(Problem) {
            return .success(try silence(object, now: now, id: id))
        } catch {
            return .failure(error)
        }
    }

    private static func silence(_ object: [String: Any], now: Date, id: String) throws(Problem) -> Silence {
        let known: Set<String> = ["matchers", "duration", "ends_at", "starts_at", "comment", "created_by"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) { throw Problem(field: unknown, "unknown field") }
        guard let rawMatchers = object["matchers"] else { throw Problem(field: "matchers", "required field is missing") }
        guard let matcherObject = rawMatchers as? [String: Any] else { throw Problem(field: "matchers", "expected an object") }
        let matchers = try matchers(matcherObject)
        let startsAt = try time(object, "starts_at") ?? now
        guard startsAt.timeIntervalSince(now) <= maximumDuration else {
            throw Problem(field: "starts_at", "a silence starts at most 365 days from now")
        }
        let hasDuration = object["duration"] != nil
        let hasEnd = object["ends_at"] != nil
        guard hasDuration != hasEnd else {
            throw Problem(field: hasDuration ? "ends_at" : "duration", "give exactly one of duration or ends_at")
        }
        let endsAt: Date
        if hasDuration {
            guard let text = object["duration"] as? String else { throw Problem(field: "duration", "expected a string such as \"2h\"") }
            guard let duration = DurationText.parse(text), duration > .zero else {
                throw Problem(field: "duration", "expected a positive duration such as \"30m\", \"2h\" or \"1d\", got \"\(text.prefix(40))\"")
            }
            endsAt = startsAt.addingTimeInterval(duration.seconds)
        } else {
            endsAt = try time(object, "ends_at") ?? now
            guard endsAt > now else { throw Problem(field: "ends_at", "must be in the future") }
        }
        guard endsAt > startsAt else { throw Problem(field: hasDuration ? "duration" : "ends_at", "must end after it starts") }
        guard endsAt.timeIntervalSince(startsAt) <= maximumDuration else {
            throw Problem(field: hasDuration ? "duration" : "ends_at", "a silence lasts at most 365 days")
        }
        guard let comment = try text(object, "comment"), !comment.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw Problem(field: "comment", "required: say why (e.g. \"exchange maintenance\")")
        }
        let createdBy = try text(object, "created_by") ?? "api"
        return Silence(
            id: id, matchers: matchers, startsAt: startsAt, endsAt: endsAt, comment: comment, createdBy: createdBy, createdAt: now)
    }

    private static func matchers(_ object: [String: Any]) throws(Problem) -> SilenceMatchers {
        let known: Set<String> = ["key", "kind", "rule", "asset", "severity"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw Problem(field: "matchers.\(unknown)", "unknown matcher (known: asset, key, kind, rule, severity)")
        }
        guard let key = try text(object, "key", path: "matchers.key"), !key.isEmpty else {
            throw Problem(field: "matchers.key", "required: a key or a glob such as \"premium/kimchi/*\"")
        }
        var matchers = SilenceMatchers(key: key)
        if let kind = try text(object, "kind", path: "matchers.kind") {
            guard let value = AlertKind(rawValue: kind) else {
                throw Problem(field: "matchers.kind", "expected one of \(AlertKind.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(kind.prefix(40))\"")
            }
            matchers.kind = value
        }
        matchers.rule = try text(object, "rule", path: "matchers.rule")
        matchers.asset = try text(object, "asset", path: "matchers.asset")?.uppercased()
        if let severity = try text(object, "severity", path: "matchers.severity") {
            guard let value = Severity(rawValue: severity) else {
                throw Problem(
                    field: "matchers.severity",
                    "expected one of \(Severity.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(severity.prefix(40))\"")
            }
            matchers.severity = value
        }
        return matchers
    }

    private static func text(_ object: [String: Any], _ key: String, path: String? = nil) throws(Problem) -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw Problem(field: path ?? key, "expected a string") }
        guard text.count <= maximumText else { throw Problem(field: path ?? key, "longer than \(maximumText) characters") }
        guard !text.contains(where: { $0.isNewline }) else { throw Problem(field: path ?? key, "must be one line") }
        // Control and format characters (ESC, BEL, BS, bidi overrides, U+0600…) rewrite a terminal or a page.
        if let scalar = text.unicodeScalars.first(where: { [.control, .format].contains($0.properties.generalCategory) }) {
            throw Problem(field: path ?? key, "must not contain control or format characters (U+\(String(scalar.value, radix: 16, uppercase: true)))")
        }
        return text
    }

    private static func time(_ object: [String: Any], _ key: String) throws(Problem) -> Date? {
        guard let text = try text(object, key) else { return nil }
        guard let date = StrictRFC3339.parse(text) else {
            throw Problem(field: key, "expected an RFC 3339 time such as \"2026-03-10T12:00:00Z\", got \"\(text.prefix(40))\"")
        }
        return date
    }
}
