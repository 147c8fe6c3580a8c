import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// Writes each alert as one native journal entry with structured fields, so for example
/// `journalctl MARKETALERT_KIND=premium -o json` or `journalctl MESSAGE_ID=542effa5e0004aba93927cd2fcdedcd7`
/// finds them.
///
/// Fields of every entry: `MESSAGE` (the summary), `PRIORITY` (info 6, notice 5, warning 4, critical 2),
/// `SYSLOG_IDENTIFIER=marketalertd`, `MESSAGE_ID` (one per kind, see ``messageID(for:)``),
/// `MARKETALERT_KEY`, `MARKETALERT_KIND`, `MARKETALERT_STATUS`, `MARKETALERT_SEVERITY`,
/// `MARKETALERT_EVENT_ID`, `MARKETALERT_AT` (RFC 3339 UTC), `MARKETALERT_EVENT_JSON` (the full event, one
/// line, as on stdout), plus the kind's own fields:
/// - premium: `MARKETALERT_RULE`, `MARKETALERT_ASSET`, `MARKETALERT_PREMIUM_PCT`, `MARKETALERT_THRESHOLD_PCT`,
///   `MARKETALERT_BASIS`, `MARKETALERT_REFERENCE`, `MARKETALERT_HIGH_EXCHANGE`, `MARKETALERT_HIGH_MARKET`,
///   `MARKETALERT_HIGH_PRICE`, `MARKETALERT_LOW_EXCHANGE`, `MARKETALERT_LOW_MARKET`, `MARKETALERT_LOW_PRICE`;
/// - ipo: `MARKETALERT_IPO_SOURCE`, `MARKETALERT_IPO_CODE`, `MARKETALERT_IPO_NAME`, `MARKETALERT_IPO_STATE`,
///   `MARKETALERT_IPO_PREVIOUS_STATE`, `MARKETALERT_IPO_SUBSCRIPTION_START`, `MARKETALERT_IPO_SUBSCRIPTION_END`
///   (present only when known);
/// - fx: `MARKETALERT_FX_PAIR`, `MARKETALERT_FX_RATE`, `MARKETALERT_FX_PROVIDER`, `MARKETALERT_FX_CHANGE_PCT`;
/// - source: `MARKETALERT_SOURCE`, `MARKETALERT_SOURCE_ERROR`, `MARKETALERT_SOURCE_CONSECUTIVE_FAILURES`;
/// - v3, an inhibited notification: `MARKETALERT_INHIBITED_BY` (the inhibitors' keys, comma-separated).
///
/// Numbers are the JSON's numbers, plain (no grouping, no exponent): prices and rates exactly as published
/// (`139500000`, `95123.45`), percentages to at most 6 decimals (`3.896104`), see `NumberText`.
package struct JournalSink: AlertSink {
    package let name = "journal"
    private let output: Output
    private let logger: Logger?

    private enum Output: Sendable {
        case immediate(@Sendable ([(String, String)]) -> Int32)
        case queued(BackgroundWriter<[(String, String)]>)
    }

    /// A sink that sends inline with `write` (a test capturing the fields).
    /// - Parameter logger: where a failed send is reported (never the event's secrets: events hold none).
    package init(logger: Logger? = nil, write: @escaping @Sendable ([(String, String)]) -> Int32) {
        self.logger = logger
        self.output = .immediate(write)
    }

    /// The daemon's sink: entries go through `writer` (``makeWriter(logger:)``), so a journald that is slow to
    /// read its socket never holds up the publisher.
    package init(logger: Logger? = nil, writer: BackgroundWriter<[(String, String)]>) {
        self.logger = logger
        self.output = .queued(writer)
    }

    /// The process's journal entry writer: up to 1,000 entries wait; a refused send is tried again after
    /// 0.5 s, 1 s, 2 s and 4 s, then given up and logged (the journal is best effort, see `deliver`).
    package static func makeWriter(logger: Logger?, capacity: Int = 1_000) -> BackgroundWriter<[(String, String)]> {
        BackgroundWriter(
            name: "journal", policy: .init(capacity: capacity, maximumAttempts: 5),
            write: { fields in
                let result = Journal.send(fields)
                return result < 0 ? String(cString: strerror(-result)) : nil
            },
            report: { report in
                if case .gaveUp(let fields, let reason) = report {
                    let id = fields.first { $0.0 == "MARKETALERT_EVENT_ID" }?.1 ?? "?"
                    logger?.warning("journal entry not sent", metadata: ["event_id": "\(id)", "error": "\(reason)"])
                }
            })
    }

    /// Best effort: a journal that is absent, slow or refuses an entry is logged, never a failed delivery
    /// (a missing journald must not hold every alert back from the other sinks). An entry that cannot even
    /// be queued (1,000 wait) is logged as dropped.
    package func deliver(_ event: AlertEvent) async {
        let fields = Self.fields(for: event)
        switch output {
        case .immediate(let write):
            let result = write(fields)
            if result < 0 {
                logger?.warning(
                    "journal entry not sent",
                    metadata: ["event_id": "\(event.id)", "errno": "\(-result)", "error": "\(String(cString: strerror(-result)))"])
            }
        case .queued(let writer):
            if writer.submit(fields) == .refused {
                logger?.warning("journal entry dropped: journald is not taking entries", metadata: ["event_id": "\(event.id)"])
            }
        }
    }

    /// `MESSAGE_ID`s, one per alert kind, fixed forever (journal catalogs and filters rely on them):
    /// - premium `542effa5e0004aba93927cd2fcdedcd7`
    /// - ipo     `6bc1814792584f00aa8981a40c37b76f`
    /// - fx      `6a425361a92245018b5bab90882b06b5`
    /// - source  `ecfaf15ac424413cb911e658820f3ed2`
    /// - digest  `3f0c2d9a8e6b4b17a4c5d2e19b7f6a30`
    /// - listing `a5647135aa8948cebefa5a9f1c7e6750`
    /// - transfer `0d6f3b1c8a2e4e5f9b7c1a3d5e7f9b21`
    package static func messageID(for kind: AlertKind) -> String {
        switch kind {
        case .premium: "542effa5e0004aba93927cd2fcdedcd7"
        case .ipo: "6bc1814792584f00aa8981a40c37b76f"
        case .fx: "6a425361a92245018b5bab90882b06b5"
        case .source: "ecfaf15ac424413cb911e658820f3ed2"
        case .digest: "3f0c2d9a8e6b4b17a4c5d2e19b7f6a30"
        case .listing: "a5647135aa8948cebefa5a9f1c7e6750"
        case .transfer: "0d6f3b1c8a2e4e5f9b7c1a3d5e7f9b21"
        }
    }

    /// syslog priority of a severity: info 6, notice 5, warning 4, critical 2.
    package static func priority(of severity: Severity) -> Int {
        switch severity {
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .critical: 2
        }
    }

    package static func fields(for event: AlertEvent) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("MESSAGE", event.summary),
            ("PRIORITY", String(priority(of: event.severity))),
            ("SYSLOG_IDENTIFIER", "marketalertd"),
            ("MESSAGE_ID", messageID(for: event.kind)),
            ("MARKETALERT_KEY", event.key),
            ("MARKETALERT_KIND", event.kind.rawValue),
            ("MARKETALERT_STATUS", event.status),
            ("MARKETALERT_SEVERITY", event.severity.rawValue),
            ("MARKETALERT_EVENT_ID", event.id),
            ("MARKETALERT_AT", Timestamp.rfc3339(event.at)),
        ]
        if let premium = event.premium { fields += premiumFields(premium) }
        if let ipo = event.ipo { fields += ipoFields(ipo) }
        if let fx = event.fx { fields += fxFields(fx) }
        if let source = event.source { fields += sourceFields(source) }
        if let context = event.premium?.context { fields.append(("MARKETALERT_CONTEXT_PERCENTILE", number(context.percentile))) }
        if let digest = event.digest { fields.append(("MARKETALERT_DIGEST_DAY", digest.day)) }
        // v3: inhibited (routed sinks did not get it): the inhibitors' keys, comma-separated.
        if let keys = event.inhibitedBy { fields.append(("MARKETALERT_INHIBITED_BY", keys.joined(separator: ","))) }
        if let json = try? event.jsonLine() { fields.append(("MARKETALERT_EVENT_JSON", json)) }
        return fields
    }

    private static func premiumFields(_ p: PremiumDetail) -> [(String, String)] {
        [
            ("MARKETALERT_RULE", p.rule),
            ("MARKETALERT_ASSET", p.asset),
            ("MARKETALERT_PREMIUM_PCT", number(p.pct)),
            ("MARKETALERT_THRESHOLD_PCT", number(p.thresholdPct)),
            ("MARKETALERT_BASIS", p.basis.rawValue),
            ("MARKETALERT_REFERENCE", p.reference),
            ("MARKETALERT_HIGH_EXCHANGE", p.high.exchange),
            ("MARKETALERT_HIGH_MARKET", p.high.market),
            ("MARKETALERT_HIGH_PRICE", p.high.price.description),
            ("MARKETALERT_LOW_EXCHANGE", p.low.exchange),
            ("MARKETALERT_LOW_MARKET", p.low.market),
            ("MARKETALERT_LOW_PRICE", p.low.price.description),
        ]
    }

    private static func ipoFields(_ i: IPODetail) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("MARKETALERT_IPO_SOURCE", i.source),
            ("MARKETALERT_IPO_CODE", i.code),
            ("MARKETALERT_IPO_NAME", i.name),
            ("MARKETALERT_IPO_STATE", i.state.rawValue),
        ]
        if let previous = i.previousState { fields.append(("MARKETALERT_IPO_PREVIOUS_STATE", previous.rawValue)) }
        if let start = i.subscriptionStart { fields.append(("MARKETALERT_IPO_SUBSCRIPTION_START", start)) }
        if let end = i.subscriptionEnd { fields.append(("MARKETALERT_IPO_SUBSCRIPTION_END", end)) }
        return fields
    }

    private static func fxFields(_ f: FXDetail) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("MARKETALERT_FX_PAIR", f.pair),
            ("MARKETALERT_FX_RATE", f.rate.description),
            ("MARKETALERT_FX_PROVIDER", f.provider),
        ]
        if let change = f.changePct { fields.append(("MARKETALERT_FX_CHANGE_PCT", number(change))) }
        return fields
    }

    private static func sourceFields(_ s: SourceDetail) -> [(String, String)] {
        var fields: [(String, String)] = [("MARKETALERT_SOURCE", s.name)]
        if let error = s.error { fields.append(("MARKETALERT_SOURCE_ERROR", error)) }
        if let failures = s.consecutiveFailures {
            fields.append(("MARKETALERT_SOURCE_CONSECUTIVE_FAILURES", String(failures)))
        }
        return fields
    }

    /// A percentage as in the JSON (6 places at most, no grouping): `0.0712`, `-1.5`, `3.896104`.
    private static func number(_ value: Double) -> String { NumberText.pct(value).description }
}
