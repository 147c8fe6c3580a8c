import Foundation
import Hummingbird
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import NIOCore

/// `GET /api/v1/history?rule=R&asset=A&since=RFC3339&until=RFC3339&limit=N` (`shared/spec/http-api.md`):
/// `{"rule", "asset", "resolution", "next", "samples": [{"at", "min_pct", "max_pct", "last_pct"}]}`. `since`
/// defaults to 24 hours before `until`, `until` to now. One answer holds at most `limit` samples (default and
/// most `maximumSamples`); when more remain, `next` is the path of the following page (null on the last), so
/// no request holds more than a page in memory, and the page is written out in chunks as it is encoded. A
/// missing or malformed parameter answers 400 naming it; a rule or asset the config does not have answers 404.
extension APIResponder {
    /// The most samples one answer holds (about 0.8 MB of JSON).
    package static let maximumSamples = 10_000

    package struct HistorySampleDocument: Encodable {
        package var at: Date
        @PercentNumber package var minPct: Double
        @PercentNumber package var maxPct: Double
        @PercentNumber package var lastPct: Double

        package enum CodingKeys: String, CodingKey { case at, minPct = "min_pct", maxPct = "max_pct", lastPct = "last_pct" }
    }

    /// Everything but the samples (which are written after it, in chunks).
    package struct HistoryHead: Encodable {
        package var rule: String
        package var asset: String
        package var resolution: String?
        package var next: String?

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(rule, forKey: .rule)
            try c.encode(asset, forKey: .asset)
            try c.encode(resolution, forKey: .resolution)
            try c.encode(next, forKey: .next)
        }

        package enum CodingKeys: String, CodingKey { case rule, asset, resolution, next }
    }

    package static func queryItems(_ query: String?) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(string: "?" + (query ?? ""))?.queryItems ?? [] where items[item.name] == nil {
            items[item.name] = item.value ?? ""
        }
        return items
    }

    package func history(_ request: Request) async -> Response {
        let query = Self.queryItems(request.uri.query)
        func bad(_ field: String, _ message: String) -> Response {
            Self.json(APIDocuments.Problem(error: "\(field): \(message)", field: field), status: .badRequest)
        }
        guard let rule = query["rule"], !rule.isEmpty else { return bad("rule", "required") }
        guard let asset = query["asset"], !asset.isEmpty else { return bad("asset", "required") }
        let now = backend.clock.now()
        var until = now
        if let text = query["until"] {
            guard let date = StrictRFC3339.parse(text) else { return bad("until", "expected an RFC 3339 time such as 2026-11-23T09:00:00Z") }
            until = date
        }
        var since = until.addingTimeInterval(-86_400)
        if let text = query["since"] {
            guard let date = StrictRFC3339.parse(text) else { return bad("since", "expected an RFC 3339 time such as 2026-11-22T09:00:00Z") }
            since = date
        }
        guard since < until else { return bad("since", "must be before until") }
        var limit = Self.maximumSamples
        if let text = query["limit"] {
            guard let value = Int(text), (1...Self.maximumSamples).contains(value) else {
                return bad("limit", "expected a whole number from 1 to \(Self.maximumSamples)")
            }
            limit = value
        }
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
                samples = try await store.samples(rule: rule, asset: asset, since: since, until: until, limit: limit + 1)
            } catch {
                backend.logger.error("state store: cannot read premium history: \(error)")
                return Self.json(APIDocuments.Problem(error: "the state store cannot be read"), status: .internalServerError)
            }
        }
        var next: String?
        if samples.count > limit {
            var items = URLComponents()
            items.path = "/api/v1/history"
            items.queryItems = [
                URLQueryItem(name: "rule", value: rule), URLQueryItem(name: "asset", value: asset),
                URLQueryItem(name: "since", value: Timestamp.rfc3339(samples[limit].at)), URLQueryItem(name: "until", value: Timestamp.rfc3339(until)),
            ] + (query["limit"] == nil ? [] : [URLQueryItem(name: "limit", value: String(limit))])
            next = items.string
            samples.removeLast(samples.count - limit)
        }
        let head = HistoryHead(rule: rule, asset: asset, resolution: settings.history.map { DurationText.format($0.resolution) }, next: next)
        return Self.historyResponse(head: head, samples: samples)
    }

    /// The document, written in chunks: the head, then the samples a few hundred at a time.
    package static func historyResponse(head: HistoryHead, samples: [HistorySample]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            var opening = APIDocuments.encode(head)
            if opening.last == UInt8(ascii: "}") { opening.removeLast() }
            opening.append(contentsOf: Array(#","samples":["#.utf8))
            try await writer.write(ByteBuffer(bytes: opening))
            var first = true
            for start in stride(from: 0, to: samples.count, by: 500) {
                let chunk = samples[start..<min(start + 500, samples.count)].map {
                    HistorySampleDocument(at: $0.at, minPct: $0.minPct, maxPct: $0.maxPct, lastPct: $0.lastPct)
                }
                var bytes = APIDocuments.encode(chunk)
                guard bytes.count > 2 else { continue }
                bytes = bytes.dropFirst().dropLast()  // the array's brackets
                if !first { bytes.insert(UInt8(ascii: ","), at: bytes.startIndex) }
                first = false
                try await writer.write(ByteBuffer(bytes: bytes))
            }
            try await writer.write(ByteBuffer(string: "]}\n"))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The 24 h sparkline of every rule and asset, as inline SVG by key (empty without history).
    package func sparklines(now: Date) async -> [String: String] {
        guard let store = backend.history, await backend.loop.snapshot({ $0.settings.history != nil }) else { return [:] }
        let count = 96
        guard let buckets = try? await store.buckets(since: now.addingTimeInterval(-86_400), until: now, count: count) else { return [:] }
        return buckets.mapValues { HistoryChart.sparkline($0, count: count) }
    }
}
