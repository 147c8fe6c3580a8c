import Foundation

/// Rate-limits the warning about ticker rows whose price was sent but unusable (NaN, zero, out of range,
/// padded or full-width digits), and keeps a per-source total since start.
///
/// A garbled feed repeats every poll; one line per source per `interval` is enough: the first rejection is
/// logged at once, later ones are summed and logged with the next rejection after `interval` has passed.
package struct RejectedPriceLog: Sendable {
    package var interval: Duration

    private struct Pending: Sendable {
        var rows = 0
        var polls = 0
        var sample: String?
    }

    private var pending: [String: Pending] = [:]
    private var lastLogged: [String: Date] = [:]
    /// Rows rejected per source since start.
    package private(set) var totals: [String: Int] = [:]

    package init(interval: Duration = .seconds(600)) {
        self.interval = interval
    }

    /// Records one poll of `source` that rejected `rows` rows; returns the line to log, or nil while the
    /// source was logged less than `interval` ago (or nothing was rejected).
    package mutating func record(source: String, rows: Int, sample: String?, now: Date) -> String? {
        guard rows > 0 else { return nil }
        totals[source, default: 0] += rows
        var entry = pending[source] ?? Pending()
        entry.rows += rows
        entry.polls += 1
        if entry.sample == nil { entry.sample = sample }
        if let last = lastLogged[source], now.timeIntervalSince(last) < Double(interval.components.seconds) {
            pending[source] = entry
            return nil
        }
        pending[source] = nil
        lastLogged[source] = now
        let rowsText = entry.rows == 1 ? "1 ticker row" : "\(entry.rows) ticker rows"
        let pollsText = entry.polls == 1 ? "" : " over \(entry.polls) polls"
        let example = entry.sample.map { " (e.g. \($0))" } ?? ""
        return "\(source): \(rowsText) with an unusable price\(pollsText)\(example); those prices were ignored "
            + "(\(totals[source] ?? 0) since start; next report at most every \(DurationText.format(interval)))"
    }
}
