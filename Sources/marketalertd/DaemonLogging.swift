import Logging
import MarketAlertIO

enum DaemonLogging {
    /// Logs go to stderr as text (the journal handler replaces this under systemd).
    static func bootstrapDaemonLogging(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "marketalertd")
        logger.logLevel = level
        return logger
    }

    static func lifecycleObserver() -> any LifecycleObserver { NoLifecycleObserver() }
}
