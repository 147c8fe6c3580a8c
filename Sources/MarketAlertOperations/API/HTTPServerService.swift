import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import NIOCore
import ServiceLifecycle

/// The HTTP server as one ServiceGroup service, and the documented owner of the hummingbird server's task:
/// it serves `http.listen` (nothing without an `http:` section) and, when a reload changes the address,
/// binds the new one before it closes the old (so a failed bind keeps the old server). On graceful shutdown
/// the server stops with the daemon.
///
/// A bind failure at start stops the daemon (exit 1): a port that is taken is a configuration error.
package final class HTTPServerService: Service {
    package struct BindFailed: Error, CustomStringConvertible {
        package var listen: String
        package var reason: String
        package var description: String { "http: cannot listen on \(listen): \(reason)" }
    }

    private let backend: APIBackend
    private let secrets: SecretResolver
    private let logger: Logger
    /// Called with the bound address (`127.0.0.1:41234`), or nil when nothing is served any more.
    private let onListening: @Sendable (String?) -> Void
    private let updates: AsyncStream<HTTPSettings?>
    private let continuation: AsyncStream<HTTPSettings?>.Continuation

    package init(
        settings: HTTPSettings?, backend: APIBackend, secrets: SecretResolver, logger: Logger,
        onListening: @escaping @Sendable (String?) -> Void = { _ in }
    ) {
        self.backend = backend
        self.secrets = secrets
        self.logger = logger
        self.onListening = onListening
        (updates, continuation) = AsyncStream.makeStream(of: HTTPSettings?.self, bufferingPolicy: .bufferingNewest(1))
        continuation.yield(settings)
        if let warning = backend.access.configure(settings, secrets: secrets) { logger.warning("\(warning)") }
    }

    /// A reload: the token is re-read at once; a changed address rebinds.
    package func apply(_ settings: HTTPSettings?) {
        if let warning = backend.access.configure(settings, secrets: secrets) { logger.warning("\(warning)") }
        continuation.yield(settings)
    }

    package func run() async throws {
        var current: (settings: HTTPSettings, server: RunningServer)?
        var first = true
        defer { continuation.finish() }
        for await desired in updates.cancelOnGracefulShutdown() {
            defer { first = false }
            guard desired?.listen != current?.settings.listen else { continue }
            guard let desired else {
                if let old = current { await old.server.stop() }
                current = nil
                backend.access.setListen(nil)
                onListening(nil)
                logger.info("http: no http section any more; the server stopped")
                continue
            }
            do {
                let server = try await start(desired)
                if let old = current { await old.server.stop() }
                current = (desired, server)
            } catch {
                guard let old = current else {
                    if first { throw error }
                    logger.error("\(error)")
                    continue
                }
                // The old server may hold the port (on another of its addresses): close it and try once more;
                // if that fails too, the old address serves again.
                await old.server.stop()
                current = nil
                do {
                    current = (desired, try await start(desired))
                } catch {
                    logger.error("\(error); \(old.settings.listen) keeps serving")
                    current = (try? await start(old.settings)).map { (old.settings, $0) }
                }
            }
        }
        if let old = current { await old.server.stop() }
    }

    /// Binds and starts a server on `settings`; returns it once it listens, or throws when it cannot.
    private func start(_ settings: HTTPSettings) async throws -> RunningServer {
        let (events, signal) = AsyncStream.makeStream(of: Result<Int, BindFailed>.self, bufferingPolicy: .unbounded)
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .warning)  // hummingbird's per-request lines are noise here
        let server = try APIServer.service(
            responder: APIResponder(backend: backend), address: .hostname(settings.host, port: settings.port), logger: serverLogger,
            onServerRunning: { channel in signal.yield(.success(channel.localAddress?.port ?? settings.port)) })
        let listen = settings.listen
        // Its own group, so it can be shut down gracefully alone (a reload): the listener and idle keep-alive
        // connections close at once, a request in flight is answered.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [server], logger: serverLogger))
        // Unstructured on purpose: owned by the `RunningServer` returned below (its `stop()` ends and awaits
        // it), so a reload can replace one server while the other still serves.
        let task = Task {
            do {
                try await group.run()
                signal.yield(.failure(BindFailed(listen: listen, reason: "the server stopped")))
            } catch {
                signal.yield(.failure(BindFailed(listen: listen, reason: "\(error)")))
            }
            signal.finish()
        }
        for await event in events {
            switch event {
            case .success(let port):
                let bound = HTTPSettings.format(host: settings.host, port: port)
                backend.access.setListen(bound)
                onListening(bound)
                logger.notice("http: listening on \(bound)", metadata: ["listen": "\(bound)"])
                return RunningServer(task: task, group: group)
            case .failure(let failure):
                throw failure
            }
        }
        throw BindFailed(listen: listen, reason: "the server did not start")
    }

    /// One hummingbird application in its own service group, and the task that runs it.
    package struct RunningServer {
        package let task: Task<Void, Never>
        package let group: ServiceGroup

        /// Graceful shutdown, cancelled if it takes longer than two seconds (a slow client).
        package func stop() async {
            await group.triggerGracefulShutdown()
            let task = task
            await withTaskGroup(of: Void.self) { waiting in
                waiting.addTask { await task.value }
                waiting.addTask {
                    guard (try? await Task.sleep(for: .seconds(2))) != nil else { return }  // stopped in time
                    task.cancel()
                }
                await waiting.next()
                waiting.cancelAll()
            }
        }
    }
}
