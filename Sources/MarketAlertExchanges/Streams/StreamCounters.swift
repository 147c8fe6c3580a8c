import Foundation
import MarketAlertKit
import Synchronization

/// Running counts of one stream, for status lines and tests.
package final class StreamCounters: Sendable {
    package struct Snapshot: Sendable, Equatable {
        package var frames = 0
        package var dataFrames = 0
        package var heartbeats = 0
        package var serverPings = 0
        package var pingsSent = 0
        package var connects = 0
        package var lives = 0
        package var downs = 0
        package var dropped: [StreamDropReason: Int] = [:]
        package var lastDownReason: String?

        package var droppedTotal: Int { dropped.values.reduce(0, +) }
    }

    private let state = Mutex(Snapshot())

    package init() {}

    package var snapshot: Snapshot { state.withLock { $0 } }

    package func update(_ body: (inout Snapshot) -> Void) { state.withLock { body(&$0) } }
}
