import Foundation

/// Frames that need no step of their own. Once a link is live, its market data and heartbeats are handled
/// where they are read (the IO target's `StreamIntake`) and only move the link's two clocks; the runner
/// reports the latest instants with `noteActivity` before each step, so the liveness checks see them. A link
/// not yet live still needs every frame as an event: its first market data or ack may make it live.
extension StreamConnectionStateMachine {
    /// A connection the machine keeps, and whether it is live.
    package struct OpenLink: Sendable, Equatable {
        package let id: StreamLinkID
        package let live: Bool

        package init(id: StreamLinkID, live: Bool) {
            self.id = id
            self.live = live
        }
    }

    /// The primary and the successor, if any: the links whose frames count.
    package var openLinks: [OpenLink] {
        var links: [OpenLink] = []
        if let primary { links.append(OpenLink(id: primary.id, live: primary.phase == .live)) }
        if let successor { links.append(OpenLink(id: successor.id, live: successor.phase == .live)) }
        return links
    }

    /// Frames arrived on `id` until `inbound` (the latest of any kind) and `data` (the latest with market
    /// data, if any did). Only moves the clocks forward; no actions (the next step checks the timers).
    package mutating func noteActivity(_ id: StreamLinkID, inbound: Date, data: Date?) {
        update(id) { link in
            link.lastInbound = max(link.lastInbound, inbound)
            if let data { link.lastData = max(link.lastData ?? data, data) }
        }
    }
}
