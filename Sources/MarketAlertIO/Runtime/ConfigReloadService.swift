import Foundation
import Logging
import MarketAlertCore
import ServiceLifecycle
import UnixSignals

/// Reloads the config file on SIGHUP. A valid file replaces the running config (the supervisor reconciles its
/// pollers, the sinks are rebuilt); an invalid one is rejected with every problem logged, and the old config
/// keeps running. The single owner of SIGHUP in the process.
package struct ConfigReloadService: Service {
    package let path: String
    package let lifecycle: any LifecycleObserver
    package let logger: Logger
    /// Applies a validated config to the running daemon.
    package let apply: @Sendable (Settings) async -> Void

    package init(path: String, lifecycle: any LifecycleObserver, logger: Logger, apply: @escaping @Sendable (Settings) async -> Void) {
        self.path = path
        self.lifecycle = lifecycle
        self.logger = logger
        self.apply = apply
    }

    package func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            _ = await reload()
        }
    }

    /// One reload: returns the applied settings, or the error that kept the old config.
    @discardableResult
    package func reload() async -> Result<Settings, ConfigError> {
        lifecycle.reloading()
        defer { lifecycle.ready() }
        logger.info("reloading configuration", metadata: ["config": "\(path)"])
        let path = path
        let outcome: Result<(settings: Settings, warnings: [ConfigIssue]), ConfigError>
        do {
            // Off the cooperative pool, and abandoned on cancellation: a config that blocks (a FIFO without a
            // writer) or takes long to parse can never hold up a stop.
            outcome = try await BlockingWork.run { Result { () throws(ConfigError) in try ConfigLoader.load(path: path) } }
        } catch {
            logger.notice("reload abandoned: the daemon is stopping", metadata: ["config": "\(path)"])
            return .failure(ConfigError(issues: [ConfigIssue(path: "", message: "reload abandoned: the daemon is stopping")]))
        }
        do throws(ConfigError) {
            let loaded = try outcome.get()
            for warning in loaded.warnings { logger.warning("config: \(warning)") }
            await apply(loaded.settings)
            logger.info("configuration reloaded", metadata: ["config": "\(path)"])
            return .success(loaded.settings)
        } catch {
            for issue in error.issues { logger.error("config rejected: \(issue)", metadata: ["config": "\(path)"]) }
            logger.error("reload rejected; the previous configuration keeps running", metadata: ["config": "\(path)"])
            return .failure(error)
        }
    }
}
