import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage

/// The JSON documents of the HTTP API (`shared/spec/http-api.md`): snake_case keys, RFC 3339 UTC times with
/// `Z`, and `null` written out for a value that is unknown.
package enum APIDocuments {
    package struct Status: Encodable {
        package var version: String
        package var startedAt: Date
        package var role = "single"
        package var listen: String?
        package var status: String
        package var ready: Bool
        package var awaiting: [String]
        package var sources: [Source]
        package var fx: [FX]
        package var premium: [Premium]
        package var ipo: [IPODetail]
        /// v3: routes, time intervals and inhibit rules (absent without `routes:` or `inhibit:`).
        package var routing: Routing?
        /// v3: the rules with `assets: all` and the assets each watches now (absent without such a rule).
        package var rules: [RuleAssets]?

        package enum CodingKeys: String, CodingKey {
            case version, startedAt = "started_at", role, listen, status, ready, awaiting, sources, fx, premium, ipo, routing, rules
        }
    }

    package struct Source: Encodable {
        package var name: String
        package var kind: String
        package var up: Bool
        package var transport: String
        package var lastSuccess: Date?
        package var lastError: String?
        package var consecutiveFailures: Int

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(name, forKey: .name)
            try c.encode(kind, forKey: .kind)
            try c.encode(up, forKey: .up)
            try c.encode(transport, forKey: .transport)
            try c.encode(lastSuccess, forKey: .lastSuccess)
            try c.encode(lastError, forKey: .lastError)
            try c.encode(consecutiveFailures, forKey: .consecutiveFailures)
        }

        package enum Keys: String, CodingKey {
            case name, kind, up, transport, lastSuccess = "last_success", lastError = "last_error", consecutiveFailures = "consecutive_failures"
        }
    }

    package struct FX: Encodable {
        package var pair: String
        package var rate: Decimal
        package var provider: String
        package var at: Date
        package var ageSeconds: Double
        /// v3, USDT/KRW: the tether premium against the official USD/KRW (absent for other pairs).
        package var premiumPct: Decimal?

        package enum CodingKeys: String, CodingKey { case pair, rate, provider, at, ageSeconds = "age_seconds", premiumPct = "premium_pct" }
    }

    package struct Premium: Encodable {
        package var rule: String
        package var asset: String
        package var pct: Double?
        package var high: QuoteDetail?
        package var low: QuoteDetail?
        package var firingLevel: Severity?
        /// v3, rules comparing KRW with USD-quoted markets: the premium on both KRW conversions.
        package var bases: BasesDetail?
        /// v3, basis depth: the trade behind `pct` (the event schema's `premium.executable`).
        package var executable: ExecutableDetail? = nil

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encodeIfPresent(bases, forKey: .bases)
            try c.encodeIfPresent(executable, forKey: .executable)
            try c.encode(rule, forKey: .rule)
            try c.encode(asset, forKey: .asset)
            try c.encode(pct, forKey: .pct)
            try c.encode(high, forKey: .high)
            try c.encode(low, forKey: .low)
            try c.encode(firingLevel, forKey: .firingLevel)
        }

        package enum Keys: String, CodingKey { case rule, asset, pct, high, low, firingLevel = "firing_level", bases, executable }
    }

    package struct Alerts: Encodable {
        package var alerts: [Alert]
    }

    package struct Alert: Encodable {
        package var alert: FiringAlert

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(alert.key, forKey: .key)
            try c.encode(alert.kind, forKey: .kind)
            try c.encode(alert.severity, forKey: .severity)
            try c.encode(alert.since, forKey: .since)
            try c.encode(alert.lastNotifiedAt, forKey: .lastNotifiedAt)
            try c.encode(alert.silencedBy, forKey: .silencedBy)
            try c.encodeIfPresent(alert.event?.summary, forKey: .summary)
            try c.encodeIfPresent(alert.event?.premium, forKey: .premium)
            try c.encodeIfPresent(alert.event?.fx, forKey: .fx)
            try c.encodeIfPresent(alert.event?.source, forKey: .source)
        }

        package enum Keys: String, CodingKey {
            case key, kind, severity, since, lastNotifiedAt = "last_notified_at", silencedBy = "silenced_by", summary, premium, fx, source
        }
    }

    package struct Silences: Encodable {
        package var silences: [SilenceDocument]
        /// The path of the next page (`?offset=…`), absent on the last.
        package var next: String?
    }

    package struct SilenceDocument: Encodable {
        package var silence: Silence
        package var now: Date

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(silence.id, forKey: .id)
            try c.encode(silence.matchers, forKey: .matchers)
            try c.encode(silence.startsAt, forKey: .startsAt)
            try c.encode(silence.endsAt, forKey: .endsAt)
            try c.encode(silence.comment, forKey: .comment)
            try c.encode(silence.createdBy, forKey: .createdBy)
            try c.encode(silence.createdAt, forKey: .createdAt)
            try c.encode(silence.isActive(at: now), forKey: .active)
        }

        package enum Keys: String, CodingKey {
            case id, matchers, startsAt = "starts_at", endsAt = "ends_at", comment, createdBy = "created_by", createdAt = "created_at", active
        }
    }

    package struct Created: Encodable { var id: String }

    package struct Problem: Encodable {
        package var error: String
        package var field: String?

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(error, forKey: .error)
            try c.encodeIfPresent(field, forKey: .field)
        }

        package enum CodingKeys: String, CodingKey { case error, field }
    }

    package struct Health: Encodable {
        package var status: String
        package var reason: String?
        package var awaiting: [String]?
        package var role: String?
    }

    // MARK: From the engine's view

    package static func status(_ view: EngineStatus, version: String, startedAt: Date, listen: String?) -> Status {
        Status(
            version: version, startedAt: startedAt, listen: listen, status: view.statusLine, ready: view.settled, awaiting: view.awaiting,
            sources: view.sources.map {
                Source(
                    name: $0.name, kind: $0.kind.rawValue, up: $0.up, transport: $0.transport, lastSuccess: $0.lastSuccess,
                    lastError: $0.lastError, consecutiveFailures: $0.consecutiveFailures)
            },
            fx: view.fx.map {
                FX(
                    pair: $0.pair, rate: $0.rate.exact, provider: $0.provider, at: $0.at, ageSeconds: max(0, view.at.timeIntervalSince($0.at)).rounded(),
                    premiumPct: $0.pair == TetherPremiumAlertSettings.pair ? view.usdtKrwPremiumPct.map(NumberText.pct) : nil)
            },
            premium: view.premium.map { row in
                Premium(
                    rule: row.rule, asset: row.asset, pct: row.observation.map { NumberText.decimal($0.pct, places: 6).doubleValue },
                    high: row.observation.map { quote($0.high) }, low: row.observation.map { quote($0.low) }, firingLevel: row.firingSeverity,
                    bases: row.bases.map(BasesDetail.init), executable: row.executable)
            },
            ipo: view.ipo.map(ipo))
    }

    package static func quote(_ priced: PricedQuote) -> QuoteDetail {
        QuoteDetail(
            exchange: priced.quote.exchange.rawValue, market: priced.quote.market, price: priced.price.exact,
            quote: priced.quote.quote, priceRef: NumberText.decimal(priced.priceRef, places: 8), side: priced.side, at: priced.quote.at)
    }

    package static func ipo(_ row: IPOOfferingStatus) -> IPODetail {
        var detail = IPODetail(
            source: row.source, code: row.code, name: row.name, market: row.market, state: row.state, previousState: nil,
            subscriptionStart: row.subscriptionStart?.iso, subscriptionEnd: row.subscriptionEnd?.iso, lotteryDate: row.lotteryDate?.iso,
            listingDate: row.listingDate?.iso, price: row.price, shares: row.shares, timeZone: row.timeZone)
        detail.value = row.value
        return detail
    }

    // MARK: Encoding

    /// Sorted keys, RFC 3339 times (the events' encoder).
    package static func encode(_ value: some Encodable) -> Data {
        (try? AlertEvent.makeEncoder().encode(value)) ?? Data(#"{"error":"cannot encode the response"}"#.utf8)
    }
}
