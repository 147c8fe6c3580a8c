import CSystemd
import Foundation
import MarketAlertKit
import MarketAlertStorage

#if canImport(Glibc)
import Glibc
#endif

/// Tells systemd about the daemon's life through `sd_notify(3)` (`Type=notify` units):
/// `READY=1`, `RELOADING=1` + `MONOTONIC_USEC=…`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`.
///
/// Outside systemd (`$NOTIFY_SOCKET` unset) every call is a cheap no-op, as `sd_notify` returns 0 then.
/// The socket is read from the environment at each call (libsystemd's behaviour); the watchdog setting is
/// read once, at init.
package struct SystemdNotifier: LifecycleObserver {
    /// The unit's full watchdog timeout (`WatchdogSec=`, passed as `$WATCHDOG_USEC`), if armed for this
    /// process. Missing a `WATCHDOG=1` for this long makes systemd kill and restart the service.
    package let watchdogTimeout: Duration?

    /// How often ``watchdog()`` must be called: **half** of ``watchdogTimeout`` (as sd_watchdog_enabled(3)
    /// recommends), or nil when no watchdog is armed. With `WatchdogSec=30s` this is 15 s.
    package var watchdogInterval: Duration? { watchdogTimeout.map { $0 / 2 } }

    /// The longest `STATUS=` text sent, in bytes; longer lines are cut at a character boundary.
    package static let maxStatusBytes = 400

    package init() {
        var usec: UInt64 = 0
        // unset_environment = 0: keep WATCHDOG_USEC/WATCHDOG_PID for anyone else who asks.
        let enabled = sd_watchdog_enabled(0, &usec)
        watchdogTimeout = enabled > 0 && usec > 0 ? .microseconds(Int64(clamping: usec)) : nil
    }

    package func ready() { send("READY=1") }

    /// `RELOADING=1` with the `CLOCK_MONOTONIC` time, as systemd ≥ 253 requires for `Type=notify-reload`
    /// (older versions ignore the extra field). Call ``ready()`` when the reload has finished.
    package func reloading() { send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())") }

    package func status(_ line: String) { send("STATUS=\(Self.statusText(line))") }

    package func watchdog() { send("WATCHDOG=1") }

    package func stopping() { send("STOPPING=1") }

    /// Sends raw notify assignments (newline-separated). Returns `sd_notify`'s result: > 0 sent,
    /// 0 no `$NOTIFY_SOCKET`, < 0 a negative errno.
    @discardableResult
    package func send(_ state: String) -> Int32 { sd_notify(0, state) }

    /// A status as one line: every control character (newlines included, which would otherwise start a
    /// new assignment such as `READY=1`) becomes a space, runs of spaces collapse, and the text is
    /// trimmed and capped at ``maxStatusBytes`` UTF-8 bytes.
    package static func statusText(_ line: String) -> String {
        var text = ""
        var lastWasSpace = true
        for scalar in line.unicodeScalars {
            let isSpace = scalar.properties.generalCategory == .control || scalar == " "
            if isSpace {
                if !lastWasSpace { text.append(" ") }
            } else {
                text.unicodeScalars.append(scalar)
            }
            lastWasSpace = isSpace
        }
        if text.hasSuffix(" ") { text.removeLast() }
        guard text.utf8.count > maxStatusBytes else { return text }
        var capped = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > maxStatusBytes { break }
            capped.append(character)
            bytes += size
        }
        return capped
    }

    /// `CLOCK_MONOTONIC` in microseconds, the clock systemd compares `MONOTONIC_USEC` against.
    package static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
