import Foundation
import Hummingbird
import MarketAlertCore

/// `GET /api/v1/history?rule=R&asset=A&since=RFC3339&until=RFC3339` (`shared/spec/http-api.md`):
/// `{"rule", "asset", "resolution", "samples": [{"at", "min_pct", "max_pct", "last_pct"}]}`. `since` defaults
/// to 24 hours before `until`, `until` to now. A missing or malformed parameter answers 400 naming it; a rule
/// or asset the config does not have answers 404.
extension APIResponder {
    struct HistoryDocument: Encodable {
        struct Sample: Encodable {
            var at: Date
            @PercentNumber var minPct: Double
            @PercentNumber var maxPct: Double
            @PercentNumber var lastPct: Double

            enum CodingKeys: String, CodingKey { case at, minPct = "min_pct", maxPct = "max_pct", lastPct = "last_pct" }
        }

        var rule: String
        var asset: String
        var resolution: String?
        var samples: [Sample]

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(rule, forKey: .rule)
            try c.encode(asset, forKey: .asset)
            try c.encode(resolution, forKey: .resolution)
            try c.encode(samples, forKey: .samples)
        }

        enum CodingKeys: String, CodingKey { case rule, asset, resolution, samples }
    }

    static func queryItems(_ query: String?) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(string: "?" + (query ?? ""))?.queryItems ?? [] where items[item.name] == nil {
            items[item.name] = item.value ?? ""
        }
        return items
    }

    func history(_ request: Request) async -> Response {
        let query = Self.queryItems(request.uri.query)
        func bad(_ field: String, _ message: String) -> Response {
            Self.json(APIDocuments.Problem(error: "\(field): \(message)", field: field), status: .badRequest)
        }
        guard let rule = query["rule"], !rule.isEmpty else { return bad("rule", "required") }
        guard let asset = query["asset"], !asset.isEmpty else { return bad("asset", "required") }
        let now = backend.clock.now()
        var until = now
        if let text = query["until"] {
            guard let date = Timestamp.parseRFC3339(text) else { return bad("until", "expected an RFC 3339 time such as 2026-11-23T09:00:00Z") }
            until = date
        }
        var since = until.addingTimeInterval(-86_400)
        if let text = query["since"] {
            guard let date = Timestamp.parseRFC3339(text) else { return bad("since", "expected an RFC 3339 time such as 2026-11-22T09:00:00Z") }
            since = date
        }
        guard since < until else { return bad("since", "must be before until") }
        let settings = await backend.loop.snapshot { $0.settings }
        guard let configured = settings.premium.rules.first(where: { $0.name == rule }) else {
            return Self.json(APIDocuments.Problem(error: "no premium rule named \(rule.prefix(100))", field: "rule"), status: .notFound)
        }
        guard configured.assets.contains(asset) else {
            return Self.json(APIDocuments.Problem(error: "rule \(rule) has no asset \(asset.prefix(40))", field: "asset"), status: .notFound)
        }
        var samples: [HistorySample] = []
        if settings.history != nil, let store = backend.history {
            do {
                samples = try await store.samples(rule: rule, asset: asset, since: since, until: until)
            } catch {
                backend.logger.error("state store: cannot read premium history: \(error)")
                return Self.json(APIDocuments.Problem(error: "the state store cannot be read"), status: .internalServerError)
            }
        }
        return Self.json(
            HistoryDocument(
                rule: rule, asset: asset, resolution: settings.history.map { DurationText.format($0.resolution) },
                samples: samples.map { HistoryDocument.Sample(at: $0.at, minPct: $0.minPct, maxPct: $0.maxPct, lastPct: $0.lastPct) }))
    }

    /// The 24 h sparkline of every rule and asset, as inline SVG by key (empty without history).
    func sparklines(now: Date) async -> [String: String] {
        guard let store = backend.history, await backend.loop.snapshot({ $0.settings.history != nil }) else { return [:] }
        let count = 96
        guard let buckets = try? await store.buckets(since: now.addingTimeInterval(-86_400), until: now, count: count) else { return [:] }
        return buckets.mapValues { HistoryChart.sparkline($0, count: count) }
    }
}
