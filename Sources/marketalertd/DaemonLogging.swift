import Logging
import MarketAlertIO

enum DaemonLogging {
    /// Native journal entries when stderr is connected to the journal (`$JOURNAL_STREAM`), else one text line
    /// per event on stderr. Never both, so nothing is logged twice.
    static func bootstrapDaemonLogging(level: Logger.Level) -> Logger {
        LoggingSetup.bootstrap(level: level)
        var logger = Logger(label: "marketalertd")
        logger.logLevel = level
        return logger
    }

    /// sd_notify (READY, STATUS, WATCHDOG, RELOADING, STOPPING); a no-op outside systemd.
    static func lifecycleObserver() -> any LifecycleObserver { SystemdNotifier() }
}
