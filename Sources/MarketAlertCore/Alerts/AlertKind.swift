/// What an alert is about. Mirrors the event schema's `kind` enum.
package enum AlertKind: String, Sendable, Codable, CaseIterable, Hashable {
    case premium, ipo, fx, source
    /// v2: the daily digest.
    case digest
    /// v3: a market appeared on or left an exchange (`listing/<exchange>/<market>`).
    case listing
    /// v3: an asset's withdrawals or deposits stopped (firing) or resumed (resolved) on an exchange
    /// (`transfer/<exchange>/<asset>`).
    case transfer
}
