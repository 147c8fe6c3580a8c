/// Alert severity, lowest first. Mirrors the event schema's `severity` enum.
package enum Severity: String, Sendable, Codable, CaseIterable, Comparable {
    case info, notice, warning, critical

    private var rank: Int {
        switch self {
        case .info: 0
        case .notice: 1
        case .warning: 2
        case .critical: 3
        }
    }

    package static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}
