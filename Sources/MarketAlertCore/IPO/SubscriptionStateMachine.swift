import Foundation

/// What is remembered per offering key (`ipo/<source>/<code>/<start>`) across polls and restarts: the last
/// state seen and which notifications were sent. A pure value: `start`/`observe` take the offering as
/// published now and the current day in the source's zone, and return the notifications due.
///
/// Rules: exactly one notification per key and state, ever (only those configured in `ipo.notify`):
/// - Each observation sends at most one notification about the subscription state, for the state the
///   offering is in now. Catch-up after downtime (or an offering first seen late) collapses to the current
///   state: an offering first seen on its last day gets one `last_day` notification whose summary says it
///   opened days ago, never an `opens` and a `last_day` both labelled `last_day`.
/// - `open` (notification `opens`): on the start day, or as a catch-up on a later open day.
/// - `last_day`: on the end day. When `last_day` is not configured but `opens` is and was never sent for this
///   window, the `opens` catch-up is sent instead (its status is still `last_day`). Either way the other one
///   counts as sent, so a reload that adds `last_day` later does not notify the same state again.
/// - `closed`: on the day after the end, and only for an offering seen before it closed (no news about
///   windows one never heard of; no catch-up days later).
/// - `announced`: when a key is first seen while `upcoming` or `unknown` (or while open when no `opens`/
///   `last_day` notification is configured). A key first seen while open is announced by its catch-up.
/// - `lottery_day`: on the lottery day. Not a state transition: its status is the state (`closed`), so with
///   both `closed` and `lottery_day` configured a key has two notifications with status `closed`.
///
/// - v3 `ipo.value`: `opens` and `last_day` wait while the gate says so (``ValueGate``): the market price
///   is not in yet, or the spread is below `min_spread_pct`. Nothing counts as sent meanwhile, so a window
///   that becomes worth it while open notifies then, once.
/// - v3 `drawn`: once, when an offering seen without a lottery result gains one (`中籤率`, `總合格件`).
///
/// "Sent" remembers the day each notification was about, so a source that moves a date notifies again
/// for the new day rather than staying silent.
package struct SubscriptionStateMachine: Sendable, Equatable, Codable {
    package struct Notice: Sendable, Equatable {
        package var notification: IPONotification
        /// The state at the time of the notice.
        package var state: SubscriptionState
        /// The state remembered before this observation (nil when the offering is new).
        package var previousState: SubscriptionState?
        /// The user missed part of this window: a late `opens`, or a `last_day`/`closed` notice for a window
        /// that was never watched while open (the summary then says what was missed).
        package var catchUp: Bool

        package init(notification: IPONotification, state: SubscriptionState, previousState: SubscriptionState?, catchUp: Bool = false) {
            self.notification = notification
            self.state = state
            self.previousState = previousState
            self.catchUp = catchUp
        }
    }

    /// The state at the last observation.
    package private(set) var state: SubscriptionState
    /// Sent notifications (`IPONotification` raw value) → the day they were about (`YYYY-MM-DD`; empty for
    /// `announced`).
    package private(set) var sent: [String: String]
    /// v3: true once the offering was seen without a lottery result, until `drawn` is decided (nil in states
    /// written before v3, which decode unchanged).
    package private(set) var awaitingDraw: Bool?

    /// Whether `opens` and `last_day` may notify now (v3 `ipo.value`).
    package enum ValueGate: Sendable, Equatable {
        /// No `ipo.value`: as in v2.
        case open
        /// The market price is not in yet: hold (nothing counts as sent).
        case wait
        /// The spread is below `min_spread_pct`: hold (nothing counts as sent).
        case belowMinimum
    }

    package init(state: SubscriptionState, sent: [String: String] = [:], awaitingDraw: Bool? = nil) {
        self.state = state
        self.sent = sent
        self.awaitingDraw = awaitingDraw
    }

    /// The first observation of a key.
    package static func start(
        offering: IPOOffering, today: CalendarDay, notify: Set<IPONotification>, gate: ValueGate = .open
    ) -> (machine: SubscriptionStateMachine, notices: [Notice]) {
        var machine = SubscriptionStateMachine(state: offering.state(on: today))
        let notices = machine.advance(offering: offering, today: today, notify: notify, gate: gate, previous: nil)
        return (machine, notices)
    }

    /// A later observation (after a poll, at a boundary, after a restart).
    package mutating func observe(
        offering: IPOOffering, today: CalendarDay, notify: Set<IPONotification>, gate: ValueGate = .open
    ) -> [Notice] {
        advance(offering: offering, today: today, notify: notify, gate: gate, previous: state)
    }

    private mutating func advance(
        offering: IPOOffering, today: CalendarDay, notify: Set<IPONotification>, gate: ValueGate, previous: SubscriptionState?
    ) -> [Notice] {
        let now = offering.state(on: today)
        var notices: [Notice] = []
        func due(_ notification: IPONotification, about day: String) -> Bool {
            guard notify.contains(notification), sent[notification.rawValue] != day else { return false }
            return gate == .open || (notification != .opens && notification != .last_day)
        }
        func send(_ notification: IPONotification, about day: String, catchUp: Bool = false) {
            notices.append(Notice(notification: notification, state: now, previousState: previous, catchUp: catchUp))
            sent[notification.rawValue] = day
        }
        // Whether the window was watched while open before this observation (so nothing about it was missed).
        let sawItOpen = previous == .open || previous == .last_day
        if let window = offering.window {
            let start = window.start.iso
            let end = window.end.iso
            switch now {
            case .open:
                if due(.opens, about: start) { send(.opens, about: start, catchUp: today != window.start) }
            case .last_day:
                let missedOpening = !sawItOpen && today != window.start
                if due(.last_day, about: end) {
                    send(.last_day, about: end, catchUp: missedOpening)
                } else if due(.opens, about: start), sent[IPONotification.last_day.rawValue] != end {
                    send(.opens, about: start, catchUp: missedOpening)
                }
                if !notices.isEmpty {
                    // One notification for the last-day state: the other one is covered by it.
                    sent[IPONotification.opens.rawValue] = start
                    sent[IPONotification.last_day.rawValue] = end
                }
            case .closed:
                if let previous, [.upcoming, .open, .last_day].contains(previous),
                   today == window.end.adding(days: 1), due(.closed, about: end) {
                    send(.closed, about: end, catchUp: !sawItOpen)
                }
            case .upcoming, .unknown:
                break
            }
        }
        if previous == nil, now != .closed, due(.announced, about: "") {
            // While the price is awaited, an open window is left to its `opens` (sent once the price is in).
            let heldOpen = gate == .wait && (now == .open || now == .last_day)
            if notices.isEmpty, !heldOpen {
                notices.append(Notice(notification: .announced, state: now, previousState: nil))
            }
            // A key first seen while open is announced by its catch-up (which carries the dates and price).
            sent[IPONotification.announced.rawValue] = ""
        }
        if let lottery = offering.lotteryDate, lottery == today, due(.lottery_day, about: lottery.iso) {
            send(.lottery_day, about: lottery.iso)
        }
        if offering.drawPublished {
            if awaitingDraw == true, due(.drawn, about: "") {
                notices.append(Notice(notification: .drawn, state: now, previousState: previous))
                sent[IPONotification.drawn.rawValue] = ""
            }
            if awaitingDraw != nil { awaitingDraw = false }
        } else if awaitingDraw == nil {
            awaitingDraw = true
        }
        state = now
        return notices
    }
}
