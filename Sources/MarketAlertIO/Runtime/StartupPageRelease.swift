import Foundation
import Logging
import ServiceLifecycle

/// Once the daemon has been up for `delay` (its first polls, stream connections and evaluations done),
/// gives back the executable's pages only start-up used (`StartupPages`), then waits for the stop.
package struct StartupPageRelease: Service {
    /// Long enough for start-up to be over: the first REST seed, stream handshakes and subscriptions
    /// (each bounded by a 10 s timeout), the first FX rates and the settled first evaluation.
    package static let defaultDelay: Duration = .seconds(15)

    let clock: any DaemonClock
    let delay: Duration
    let logger: Logger
    let release: @Sendable () -> Int

    package init(
        clock: any DaemonClock, delay: Duration = Self.defaultDelay, logger: Logger,
        release: @escaping @Sendable () -> Int = { StartupPages.release() }
    ) {
        self.clock = clock
        self.delay = delay
        self.logger = logger
        self.release = release
    }

    package func run() async throws {
        let clock = clock
        let delay = delay
        let release = release
        let logger = logger
        // The wait for the stop begins before the release, so its code (ServiceLifecycle's) runs now and
        // not after it, when each of its pages would be faulted back and kept (perf: eight of the polling
        // daemon's text faults after the release were that wait's).
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await gracefulShutdown() }
            do {
                try await cancelWhenGracefulShutdown { try await clock.sleep(for: delay, label: .startupPages) }
            } catch {
                return  // stopping (or cancelled) before start-up was over: nothing to give back
            }
            let bytes = release()
            // MB to one decimal by rounding, not `String(format:)`: the formatter's code would run only now.
            let megabytes = (Double(bytes) / 1_048_576 * 10).rounded() / 10
            logger.debug("released start-up pages of the executable", metadata: ["mb": "\(megabytes)"])
            await group.waitForAll()
        }
    }
}

extension ClockLabel {
    /// Waiting out start-up before giving back its pages.
    package static let startupPages = ClockLabel("startup pages")
}
