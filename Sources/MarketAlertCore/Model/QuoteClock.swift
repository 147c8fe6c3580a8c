import Foundation

/// The one check every quote's own time passes before the engine uses it (REST and stream alike): a time
/// more than `maxAhead` after the quote was received, or before `earliest`, is a unit error (microseconds
/// read as milliseconds give the year 58872; seconds read as milliseconds give 1970) or garbage. Such a time
/// would make a quote look fresh forever, or stale at once, and is invalid in an alert event; the quote keeps
/// its prices and takes its receive time instead, and the engine counts it (`quotes_rejected_total
/// {reason="clock"}`).
package enum QuoteClock {
    /// How far a quote's own time may run ahead of its receive time (the exchange's clock against ours).
    package static let maxAhead: TimeInterval = 5
    /// 2010-01-01T00:00:00Z: no market watched has a genuine quote time before it.
    package static let earliest = Date(timeIntervalSince1970: 1_262_304_000)

    /// Whether `time`, the exchange's time of a quote received at `receivedAt`, can be what it says.
    @inline(__always)
    package static func isPlausible(_ time: Date, receivedAt: Date) -> Bool {
        time >= earliest && time.timeIntervalSince(receivedAt) <= maxAhead
    }
}

extension Quote {
    /// Whether the exchange's time is there and implausible (see `QuoteClock`).
    @inline(__always)
    package var hasImplausibleTime: Bool {
        guard let exchangeTime else { return false }
        return !QuoteClock.isPlausible(exchangeTime, receivedAt: receivedAt)
    }
}
