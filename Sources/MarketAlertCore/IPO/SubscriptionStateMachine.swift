import Foundation

/// What is remembered per offering key (`ipo/<source>/<code>/<start>`) across polls and restarts: the last
/// state seen and which notifications were sent. A pure value: `start`/`observe` take the offering as
/// published now and the current day in the source's zone, and return the notifications due.
///
/// Rules (each notification at most once per offering, only if configured in `ipo.notify`):
/// - `announced`: when a key is first seen, unless its window has already closed.
/// - `opens`: while the state is `open` or `last_day` and it was not sent for this start day. On the start
///   day itself that is the boundary; later it is a catch-up (the daemon was down, or the offering was
///   first seen late). Never for a window that has already closed.
/// - `last_day`: on the end day.
/// - `closed`: on the day after the end, and only for an offering seen before it closed (no news about
///   windows one never heard of; no catch-up days later).
/// - `lottery_day`: on the lottery day.
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
        /// Sent after the day it announces began (late `opens`).
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

    package init(state: SubscriptionState, sent: [String: String] = [:]) {
        self.state = state
        self.sent = sent
    }

    /// The first observation of a key.
    package static func start(
        offering: IPOOffering, today: CalendarDay, notify: Set<IPONotification>
    ) -> (machine: SubscriptionStateMachine, notices: [Notice]) {
        var machine = SubscriptionStateMachine(state: offering.state(on: today))
        let notices = machine.advance(offering: offering, today: today, notify: notify, previous: nil)
        return (machine, notices)
    }

    /// A later observation (after a poll, at a boundary, after a restart).
    package mutating func observe(offering: IPOOffering, today: CalendarDay, notify: Set<IPONotification>) -> [Notice] {
        advance(offering: offering, today: today, notify: notify, previous: state)
    }

    private mutating func advance(
        offering: IPOOffering, today: CalendarDay, notify: Set<IPONotification>, previous: SubscriptionState?
    ) -> [Notice] {
        let now = offering.state(on: today)
        var notices: [Notice] = []
        func due(_ notification: IPONotification, about day: String) -> Bool {
            notify.contains(notification) && sent[notification.rawValue] != day
        }
        func send(_ notification: IPONotification, about day: String, catchUp: Bool = false) {
            notices.append(Notice(notification: notification, state: now, previousState: previous, catchUp: catchUp))
            sent[notification.rawValue] = day
        }
        if previous == nil, now != .closed, due(.announced, about: "") {
            send(.announced, about: "")
        }
        if let window = offering.window {
            if now == .open || now == .last_day, due(.opens, about: window.start.iso) {
                send(.opens, about: window.start.iso, catchUp: today != window.start)
            }
            if now == .last_day, due(.last_day, about: window.end.iso) {
                send(.last_day, about: window.end.iso)
            }
            if now == .closed, let previous, [.upcoming, .open, .last_day].contains(previous),
               today == window.end.adding(days: 1), due(.closed, about: window.end.iso) {
                send(.closed, about: window.end.iso)
            }
        }
        if let lottery = offering.lotteryDate, lottery == today, due(.lottery_day, about: lottery.iso) {
            send(.lottery_day, about: lottery.iso)
        }
        state = now
        return notices
    }
}
