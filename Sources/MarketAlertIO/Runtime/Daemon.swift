import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import ServiceLifecycle

/// Wires the running daemon: config, state store, HTTP client, sinks, supervisor, SIGHUP reload, and a
/// ServiceGroup that turns SIGTERM/SIGINT into a graceful shutdown. The executable only calls into here.
package enum Daemon {
    /// Exit codes: 0 clean, 1 config or startup error (systemd's Restart=on-failure applies).
    package static func run(configPath: String, logger: Logger, lifecycle: any LifecycleObserver, clock: any DaemonClock = SystemClock()) async -> Int32 {
        logger.debug("\(MallocTuning.atStartup)")
        let settings: Settings
        do throws(ConfigError) {
            let loaded = try ConfigLoader.load(path: configPath)
            for warning in loaded.warnings { logger.warning("config: \(warning)") }
            settings = loaded.settings
        } catch {
            for issue in error.issues { logger.critical("config: \(issue)", metadata: ["config": "\(configPath)"]) }
            return 1
        }
        let environment = ProcessInfo.processInfo.environment
        let stateDirectory = resolveStateDirectory(settings, environment: environment)
        let store: StateStore
        do {
            store = try StateStore(directory: stateDirectory)
        } catch {
            logger.critical("cannot open the state store in \(stateDirectory): \(error)")
            return 1
        }
        logger.info("state store open", metadata: ["path": "\(store.path ?? stateDirectory)"])

        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpConfiguration())
        let wiring = DaemonWiring(
            client: client, clock: clock, store: store, secrets: SecretResolver(environment: environment), logger: logger, initial: settings)
        let router = SinkRouter(await wiring.sinks(for: settings))
        let supervisor = Supervisor(
            settings: settings, components: wiring.components(), clock: clock, store: store, sink: router,
            lifecycle: lifecycle, logger: logger)
        let reload = ConfigReloadService(path: configPath, lifecycle: lifecycle, logger: logger) { newSettings in
            await wiring.reloadWebhooks(newSettings)
            await router.replace(with: await wiring.sinks(for: newSettings))
            await supervisor.apply(newSettings)
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: reload)]
        services += wiring.backgroundServices().map { .init(service: $0) }
        services.append(.init(service: SupervisorService(supervisor: supervisor)))
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(3)
        configuration.maximumCancellationDuration = .seconds(1)
        let group = ServiceGroup(configuration: configuration)
        var exitCode: Int32 = 0
        do {
            try await group.run()
        } catch {
            logger.critical("daemon stopped on an error: \(error)")
            exitCode = 1
        }
        try? await client.shutdown()
        return exitCode
    }

    /// `marketalertd once`: one poll of every enabled source, one evaluation, the alerts a first evaluation
    /// emits (to stdout, in the configured format), then a table of premiums and IPO states. Touches no
    /// state store, so it never suppresses or repeats the daemon's own notifications.
    package static func once(
        configPath: String, logger: Logger, clock: any DaemonClock = SystemClock(), includeClosed: Bool = false
    ) async -> (code: Int32, report: String) {
        let settings: Settings
        do throws(ConfigError) {
            settings = try ConfigLoader.load(path: configPath).settings
        } catch {
            return (1, error.issues.map { "config: \($0)" }.joined(separator: "\n"))
        }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpConfiguration())
        let environment = ProcessInfo.processInfo.environment
        let wiring = DaemonWiring(
            client: client, clock: clock, store: nil, secrets: SecretResolver(environment: environment), logger: logger, initial: settings)
        let stdout = StdoutSink(format: settings.sinks.stdoutFormat, displayTimeZones: settings.displayTimeZones)
        let supervisor = Supervisor(settings: settings, components: wiring.components(), clock: clock, store: nil, sink: stdout, logger: logger)
        await supervisor.runOnce()
        let report = OnceReport.render(
            premiums: await supervisor.premiumTable(), reference: settings.premium.reference, ipo: await supervisor.ipoSnapshot(),
            health: await supervisor.sourceHealth(), now: clock.now(), displayTimeZones: settings.displayTimeZones,
            includeClosed: includeClosed)
        try? await client.shutdown()
        return (0, report)
    }

    package static func resolveStateDirectory(_ settings: Settings, environment: [String: String]) -> String {
        if let configured = settings.stateDirectory, !configured.isEmpty { return configured }
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !systemd.isEmpty { return String(systemd) }
        return "./state"
    }

    static func httpConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        configuration.decompression = .enabled(limit: .ratio(40))
        configuration.connectionPool = .init(idleTimeout: .seconds(60))
        return configuration
    }
}
