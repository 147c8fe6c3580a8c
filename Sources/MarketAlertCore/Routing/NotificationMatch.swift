import Foundation

/// A route's `match` or an inhibit rule's `source`/`target`: exact fields (all given ones must hold) and a
/// key glob. An empty match matches everything.
package struct NotificationMatch: Sendable, Equatable {
    package var kind: AlertKind?
    package var rule: String?
    package var asset: String?
    /// Either side of a premium (high or low), or the exchange a source/transfer/listing alert is about.
    package var exchange: String?
    package var severity: Severity?
    package var status: String?
    /// `*` matches any run of characters (including `/`).
    package var key: String?

    package init(
        kind: AlertKind? = nil, rule: String? = nil, asset: String? = nil, exchange: String? = nil,
        severity: Severity? = nil, status: String? = nil, key: String? = nil
    ) {
        self.kind = kind
        self.rule = rule
        self.asset = asset
        self.exchange = exchange
        self.severity = severity
        self.status = status
        self.key = key
    }

    package func matches(_ event: AlertEvent) -> Bool {
        if let kind, event.kind != kind { return false }
        if let severity, event.severity != severity { return false }
        if let status, event.status != status { return false }
        let fields = NotificationFields(event)
        if let rule, fields.rule != rule { return false }
        if let asset, fields.asset != asset { return false }
        if let exchange, !fields.exchanges.contains(exchange) { return false }
        if let key, !Glob.matches(key, event.key) { return false }
        return true
    }
}

/// The routing fields of a notification, wherever its kind keeps them.
package struct NotificationFields: Sendable, Equatable {
    package var rule: String?
    package var asset: String?
    /// Both sides of a premium; the one exchange of a source, transfer or listing alert.
    package var exchanges: [String]

    package init(_ event: AlertEvent) {
        if let premium = event.premium {
            rule = premium.rule
            asset = premium.asset
            exchanges = [premium.high.exchange, premium.low.exchange]
            return
        }
        let parts = event.key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch event.kind.rawValue {
        case "source":
            // source/<name>: an exchange, an FX provider or an IPO source.
            exchanges = parts.count >= 2 ? [event.source?.name ?? parts[1]] : []
        case "transfer":
            // transfer/<exchange>/<asset>
            exchanges = parts.count >= 3 ? [parts[1]] : []
            asset = parts.count >= 3 ? parts[2] : nil
        case "listing":
            // listing/<exchange>/<market>
            exchanges = parts.count >= 3 ? [parts[1]] : []
        default:
            exchanges = []
        }
    }
}

/// Shell-style `*` globbing over whole strings, without regular expressions (keys are short; no allocation
/// beyond the UTF-8 views).
package enum Glob {
    package static func matches(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern.utf8)
        let t = Array(text.utf8)
        var pi = 0, ti = 0
        var star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == UInt8(ascii: "*") {
                star = pi
                mark = ti
                pi += 1
            } else if pi < p.count, p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }
}
