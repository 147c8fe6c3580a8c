/// Hooks for the service manager (systemd's sd_notify): the supervisor calls them at the matching moments.
package protocol LifecycleObserver: Sendable {
    /// Config loaded, state store open, pollers started.
    func ready()
    /// A SIGHUP reload began (`ready()` follows when it ends, applied or rejected).
    func reloading()
    /// One line describing the daemon now, e.g. `7 exchanges ok, 1 failing (bithumb); max premium BTC 0.07%`.
    func status(_ line: String)
    /// The evaluation loop is alive.
    func watchdog()
    /// Shutdown began.
    func stopping()
    /// How often `watchdog()` must be called, if a watchdog is armed.
    var watchdogInterval: Duration? { get }
}

/// For runs outside a service manager (and tests).
package struct NoLifecycleObserver: LifecycleObserver {
    package init() {}
    package func ready() {}
    package func reloading() {}
    package func status(_ line: String) {}
    package func watchdog() {}
    package func stopping() {}
    package var watchdogInterval: Duration? { nil }
}
