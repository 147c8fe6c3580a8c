import Foundation
import Logging
import MarketAlertCore
import ServiceLifecycle

/// This process as a member of an HA group (`ha:`): the PostgreSQL store (a service of its own: its connection
/// pool), its role, the channel on which the publisher and the store report what ends a leadership
/// (`events`), and the service that prepares the database and keeps or seeks the lease (`LeaseKeeper`),
/// doing the takeover when it leads.
package final class HAMembership: Sendable {
    package let settings: HASettings
    package let store: PostgresStore
    package let role: HARole
    package let url: PostgresURL
    /// Failed commits (the publisher), refused fenced writes (the store) and failed takeovers, consumed by the
    /// lease keeper.
    package let events = LeadershipEvents()

    private init(settings: HASettings, store: PostgresStore, role: HARole, url: PostgresURL) {
        self.settings = settings
        self.store = store
        self.role = role
        self.url = url
    }

    /// Resolves the database URL (a secret: environment or `$CREDENTIALS_DIRECTORY`) and opens the store (no
    /// connection yet). The error names the secret, never its value.
    package static func open(
        _ settings: HASettings, secrets: SecretResolver, logger: Logger, clock: any DaemonClock = SystemClock()
    ) throws(HAConfigurationError) -> HAMembership {
        let url = try HADatabaseURL.resolve(settings, secrets: secrets)
        let instance = settings.instance ?? HARole.defaultInstanceName()
        let store: PostgresStore
        do { store = try PostgresStore(url: url, instance: instance, logger: logger, clock: clock) } catch {
            throw HAConfigurationError(message: "ha: cannot set up the PostgreSQL client for \(url.redacted): \(error)")
        }
        return HAMembership(settings: settings, store: store, role: HARole(instance: instance), url: url)
    }

    /// The ServiceGroup service: migrations (retried with backoff until the database answers), then the lease.
    package func service(
        runtime: DataPathService, outbox: WebhookOutbox?, clock: any DaemonClock, lifecycle: HAStatusLifecycle, logger: Logger
    ) -> HAService {
        HAService(membership: self, runtime: runtime, outbox: outbox, clock: clock, lifecycle: lifecycle, logger: logger)
    }
}

package struct HAService: Service {
    let membership: HAMembership
    let runtime: DataPathService
    let outbox: WebhookOutbox?
    let clock: any DaemonClock
    let lifecycle: HAStatusLifecycle
    let logger: Logger

    /// Prepares the database, then owns the lease keeper: runs it and performs what it decides, in order (the
    /// takeover when it leads, the publisher stopped when it stands by), until a graceful shutdown has made it
    /// give the lease up.
    package func run() async throws {
        guard await prepareDatabase() else { return }
        let keeper = LeaseKeeper(
            store: membership.store, lease: membership.settings.lease, role: membership.role, clock: clock, logger: logger,
            events: membership.events)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await keeper.run() }
                for await change in keeper.changes {  // finished when the keeper's run() returns
                    switch change {
                    case .leads(let epoch):
                        if await !takeOver(epoch: epoch) { membership.events.report(.takeoverFailed(epoch: epoch)) }
                    case .standsBy:
                        await stepDown()
                    }
                }
            }
        } onGracefulShutdown: {
            keeper.stop()
        }
    }

    /// Applies the migrations, retrying with backoff (0.5 s doubling to 10 s) while the database is
    /// unreachable; false when shut down meanwhile.
    private func prepareDatabase() async -> Bool {
        var delay = 0.5
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                let version = try await membership.store.migrate()
                logger.info("HA: database ready", metadata: [
                    "database": "\(membership.url.redacted)", "schema": "\(version)", "instance": "\(membership.store.instance)",
                    "lease": "\(DurationText.format(membership.settings.lease))",
                ])
                return true
            } catch {
                logger.error("HA: cannot prepare the database \(membership.url.redacted) (retrying in \(delay) s): \(error)")
                do { try await clock.sleep(for: .milliseconds(Int64(delay * 1000)), label: .haDatabaseRetry) } catch { return false }
                delay = min(delay * 2, 10)
            }
        }
        return false
    }

    /// The takeover: adopt what the previous leader committed, then resume its deliveries. False when the
    /// stored states cannot be read (then it steps down again rather than lead on a guess).
    private func takeOver(epoch: Int64) async -> Bool {
        let restored: AlertEngine.Restored
        let settings = await runtime.loop.snapshot { $0.settings }
        do { restored = try await HATakeover.loadStates(membership.store, settings: settings, now: clock.now(), logger: logger) } catch {
            logger.error("HA: cannot read the stored alert states to take over: \(error)")
            return false
        }
        await OperationsWiring.restoreSilences(into: runtime.inbox, store: membership.store, now: clock.now(), logger: logger)
        runtime.inbox.takeover(restored, epoch: epoch)
        await outbox?.wakeAll()
        lifecycle.roleChanged()
        return true
    }

    private func stepDown() async {
        await runtime.publisher.stopLeading()
        lifecycle.roleChanged()
    }
}

extension ClockLabel {
    /// An HA member waiting to try its database again.
    package static let haDatabaseRetry = ClockLabel("ha database retry")
}
