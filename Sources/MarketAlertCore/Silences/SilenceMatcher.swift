import Foundation

/// Which notifications a silence selects. Pure: glob matching on keys and exact matching on the rest.
package enum SilenceMatcher {
    /// The labels of a notification a silence matches on.
    package struct Subject: Sendable, Equatable {
        package var key: String
        package var kind: AlertKind
        package var rule: String?
        package var asset: String?
        package var severity: Severity

        package init(key: String, kind: AlertKind, rule: String?, asset: String?, severity: Severity) {
            self.key = key
            self.kind = kind
            self.rule = rule
            self.asset = asset
            self.severity = severity
        }

        /// The subject of `event`; `firingSeverity` (the severity the key fired with) replaces a resolved
        /// event's `info`, so a silence on `severity: warning` also holds back that key's resolution.
        package init(_ event: AlertEvent, firingSeverity: Severity? = nil) {
            let parts = Self.premiumParts(event.key)
            self.init(
                key: event.key, kind: event.kind, rule: event.premium?.rule ?? parts?.rule, asset: event.premium?.asset ?? parts?.asset,
                severity: event.status == AlertEvent.Status.resolved ? firingSeverity ?? event.severity : event.severity)
        }

        /// `premium/<rule>/<asset>` → (rule, asset).
        static func premiumParts(_ key: String) -> (rule: String, asset: String)? {
            let parts = key.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "premium" else { return nil }
            return (String(parts[1]), String(parts[2]))
        }
    }

    package static func matches(_ matchers: SilenceMatchers, _ subject: Subject) -> Bool {
        if let kind = matchers.kind, kind != subject.kind { return false }
        if let rule = matchers.rule, rule != subject.rule { return false }
        if let asset = matchers.asset, asset.uppercased() != subject.asset?.uppercased() { return false }
        if let severity = matchers.severity, severity != subject.severity { return false }
        return glob(matchers.key, matches: subject.key)
    }

    /// The first silence active at `now` that selects `subject` (by creation, then id).
    package static func activeSilence(for subject: Subject, in silences: [Silence], now: Date, excluding: String? = nil) -> Silence? {
        silences.first { $0.id != excluding && $0.isActive(at: now) && matches($0.matchers, subject) }
    }

    /// `*` matches any run of characters (including none and `/`); every other character matches itself.
    /// Linear in the key for the usual one or two stars (greedy with backtracking to the last star).
    package static func glob(_ pattern: String, matches text: String) -> Bool {
        let p = Array(pattern.utf8)
        let t = Array(text.utf8)
        var pi = 0
        var ti = 0
        var star = -1
        var mark = 0
        let asterisk = UInt8(ascii: "*")
        while ti < t.count {
            if pi < p.count, p[pi] != asterisk, p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == asterisk {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == asterisk { pi += 1 }
        return pi == p.count
    }
}
