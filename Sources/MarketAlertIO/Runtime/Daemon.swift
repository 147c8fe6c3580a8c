import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// Wires the running daemon: config, state store, HTTP client, sinks, the runtime (producers → engine →
/// publisher), SIGHUP reload, and a ServiceGroup that turns SIGTERM/SIGINT into a graceful shutdown. The
/// executable only calls into here.
package enum Daemon {
    /// Exit codes: 0 clean, 1 config or startup error (systemd's Restart=on-failure applies).
    /// - Parameter lockStateDirectory: take the one-daemon-per-state_dir lock (`StateDirectoryLock`); only a
    ///   mode where several instances share a state on purpose passes false.
    package static func run(
        configPath: String, logger: Logger, lifecycle: any LifecycleObserver, clock: any DaemonClock = SystemClock.onLoop(DataPathExecutor.shared.loop),
        lockStateDirectory: Bool = true
    ) async -> Int32 {
        logger.debug("\(MallocTuning.atStartup)")
        // A closed stdout must be a failed write (reported), not a SIGPIPE that kills the daemon.
        signal(SIGPIPE, SIG_IGN)
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
        // With `ha:` the state lives in PostgreSQL (`HAMembership`); without, in SQLite in state_dir, locked.
        var ha: HAMembership?
        var stateLock: StateDirectoryLock?
        defer { withExtendedLifetime(stateLock) {} }
        let store: any StateStore
        var startupEvents: [AlertEvent] = []
        if let haSettings = settings.ha {
            do throws(HAConfigurationError) {
                let membership = try HAMembership.open(haSettings, secrets: SecretResolver(environment: environment), logger: logger, clock: clock)
                ha = membership
                store = membership.store
                logger.info("HA: member of a group on \(membership.url.redacted) as \(membership.store.instance); standby until it holds the lease")
            } catch {
                logger.critical("\(error)")
                return 1
            }
        } else {
            let stateDirectory = resolveStateDirectory(settings, environment: environment)
            do throws(StateDirectoryLock.Failure) {
                stateLock = lockStateDirectory ? try StateDirectoryLock.acquire(directory: stateDirectory) : nil
            } catch {
                logger.critical("\(error)")
                return 1
            }
            do {
                let opened = try SQLiteStore.openRecovering(directory: stateDirectory, now: clock.now())
                store = opened.store
                let path = opened.store.path ?? stateDirectory
                if let recovery = opened.recovery {
                    logger.critical(
                        "state store damaged (\(recovery.reason)); kept aside as \(recovery.keptAt) and started afresh: alerts firing before may notify again",
                        metadata: ["path": "\(path)"])
                    startupEvents.append(StateRecoveryEvent.make(recovery, now: clock.now()))
                }
                logger.info("state store open", metadata: ["path": "\(path)"])
            } catch {
                logger.critical("cannot open the state store in \(stateDirectory): \(error)")
                return 1
            }
        }

        // Start-up so far (the arguments, YAML, the config checks, the state store and its migrations) ran code and
        // read data that nothing uses again: give those pages back now, before the network's start-up adds its
        // own, so that the two do not add up in the peak (StartupPageRelease gives back the rest at 15 s).
        StartupPages.release()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpConfiguration())
        let webhookClient = WebhookHTTPClient.make()
        let wiring = ProducerSinkFactory(
            client: client, webhookClient: webhookClient, clock: clock, queue: store, secrets: SecretResolver(environment: environment),
            logger: logger, initial: settings)
        let haLifecycle = ha.map { HAStatusLifecycle(base: lifecycle, role: $0.role) }
        let statusLifecycle = HTTPStatusLifecycle(base: haLifecycle ?? lifecycle)
        let runtime = await DataPathService.make(
            settings: settings, store: store, sinks: wiring.sinks(for: settings), factory: wiring.producers(), clock: clock,
            lifecycle: statusLifecycle, logger: logger, startupEvents: startupEvents, leadership: ha?.events,
            executor: DataPathExecutor.shared, writeReports: wiring.writeReports)
        let http = await OperationsWiring.attach(
            to: runtime, settings: settings, store: store, clock: clock, lifecycle: statusLifecycle,
            secrets: SecretResolver(environment: environment), logger: logger, ha: ha?.role ?? .single)
        let reload = ConfigReloadService(path: configPath, lifecycle: lifecycle, logger: logger) { newSettings in
            http.apply(newSettings.http)
            await wiring.reloadWebhooks(newSettings)
            await runtime.publisher.replaceSinks(wiring.sinks(for: newSettings))
            await runtime.publisher.configureRouting(newSettings.routing)
            await runtime.apply(newSettings)
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: StartupPageRelease(clock: clock, logger: logger)), .init(service: reload),
        ]
        // The PostgreSQL pool first: it stops last, after everything that reads or writes through it.
        if let ha { services.insert(.init(service: ha.store), at: 0) }
        if let outbox = wiring.outbox { services.append(.init(service: outbox)) }
        // Before the runtime: stopped after it, so the lease is released once the last decisions are published.
        if let ha, let haLifecycle {
            services.append(.init(service: ha.service(runtime: runtime, outbox: wiring.outbox, clock: clock, lifecycle: haLifecycle, logger: logger)))
        }
        services.append(.init(service: runtime))
        services.append(.init(service: http))  // last: the first to stop at shutdown
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(3)
        // No cancellation deadline: every part stops promptly when cancelled (blocking work such as reading
        // the config runs off the pool and is abandoned), and a deadline would turn a slow stop into a crash.
        configuration.maximumCancellationDuration = nil
        let group = ServiceGroup(configuration: configuration)
        var exitCode: Int32 = 0
        do {
            try await group.run()
        } catch {
            logger.critical("daemon stopped on an error: \(error)")
            exitCode = 1
        }
        try? await client.shutdown()
        try? await webhookClient.shutdown()
        return exitCode
    }

    /// `marketalertd once`: one poll of every enabled source, the engine drained, the alerts a first
    /// evaluation emits (to stdout, in the configured format), then a table of premiums and IPO windows
    /// (closed ones only with `includeClosed`). Touches no state store, so it never suppresses or repeats
    /// the daemon's own notifications.
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
        let wiring = ProducerSinkFactory(
            client: client, clock: clock, queue: nil, secrets: SecretResolver(environment: ProcessInfo.processInfo.environment),
            logger: logger, initial: settings)
        // A one-shot command: its alerts are written inline, before the report that follows them.
        let stdout = StdoutSink(format: settings.sinks.stdoutFormat, displayTimeZones: settings.displayTimeZones) {
            FileDescriptorWrite.blocking(STDOUT_FILENO, FileDescriptorWrite.line($0)) == nil
        }
        let runtime = await DataPathService.make(
            settings: settings, store: nil, sinks: [stdout], factory: wiring.producers(), clock: clock, logger: logger)
        await runtime.runOnce(settings)
        let now = clock.now()
        let view = await runtime.loop.snapshot { engine in
            (premiums: engine.premiumTable(), health: engine.sourceHealth, ipo: engine.ipoSnapshot(now: now))
        }
        let report = OnceReport.render(
            premiums: view.premiums, reference: settings.premium.reference, ipo: view.ipo, health: view.health, now: now,
            displayTimeZones: settings.displayTimeZones, includeClosed: includeClosed)
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
