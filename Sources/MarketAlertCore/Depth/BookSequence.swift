/// The sequence check of a diff-based order-book stream (Binance `depth`, and exchanges like it): diffs are
/// buffered until a REST snapshot arrives; those the snapshot already contains are dropped; the first one
/// applied must straddle the snapshot; after it, each diff must follow the previous one without a gap.
///
/// Binance's rule, which the others share up to field names: drop events with `u <= lastUpdateId`; the first
/// event applied has `U <= lastUpdateId + 1 <= u`; then each event's `U` is the previous `u + 1`. A gap means
/// a lost message: the book is thrown away and rebuilt from a fresh snapshot.
package struct BookSequence: Sendable, Equatable {
    package enum Verdict: Sendable, Equatable {
        /// Apply the diff.
        case apply
        /// Already in the snapshot (or a repeat): skip it.
        case skip
        /// No snapshot yet: keep the diff until one arrives.
        case buffer
        /// A diff is missing: resync from a new snapshot.
        case gap
    }

    /// The last update applied (the snapshot's id until the first diff); nil: waiting for a snapshot.
    package private(set) var last: UInt64?
    /// Whether a diff has been applied since the snapshot (the straddle rule applies to the first only).
    private var bridged = false

    package init() {}

    /// A snapshot whose last update id is `id` now seeds the book.
    package mutating func snapshot(_ id: UInt64) {
        last = id
        bridged = false
    }

    /// The book is thrown away: wait for the next snapshot.
    package mutating func reset() {
        last = nil
        bridged = false
    }

    /// What to do with a diff covering updates `first...final` (`U` and `u`).
    package mutating func check(first: UInt64, final: UInt64) -> Verdict {
        guard let last else { return .buffer }
        guard final > last else { return .skip }
        if bridged {
            guard first == last &+ 1 else { return .gap }
        } else {
            guard first <= last &+ 1 else { return .gap }
            bridged = true
        }
        self.last = final
        return .apply
    }
}
