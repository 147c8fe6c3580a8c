import Foundation
import Hummingbird
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import NIOCore

/// Routes every request of the HTTP interface (`shared/spec/http-api.md`): `/healthz`, `/readyz`, `/metrics`,
/// `/api/v1/status`, `/api/v1/alerts`, `/api/v1/silences[/{id}]` and the status page `/`. Unknown paths answer
/// 404 and a wrong method 405 (with `Allow`), both with a JSON error body.
package struct APIResponder: HTTPResponder {
    package typealias Context = BasicRequestContext

    package let backend: APIBackend

    /// `Sec-Fetch-Site`, which HTTPTypes does not name (a constant, valid token).
    package static let secFetchSite = HTTPFields.Element.Name("Sec-Fetch-Site")!

    /// Request bodies are small JSON objects.
    package static let maximumBody = 64 * 1024

    package func respond(to request: Request, context: Context) async throws -> Response {
        await respond(to: request, client: nil)
    }

    /// Answers `request` from `client` (its address, for the per-client limit on wrong tokens).
    package func respond(to request: Request, client: String?) async -> Response {
        if request.method == .connect {
            // The HTTP codec turns a CONNECT into a tunnel that never frames an answer's body: refuse it with no
            // body and close the connection, so it cannot hang.
            var headers = HTTPFields()
            headers[.connection] = "close"
            headers[.allow] = "GET, HEAD, POST, DELETE"
            headers[.contentLength] = "0"
            return Response(status: .methodNotAllowed, headers: headers, body: ResponseBody())
        }
        if let refused = screen(request) { return refused }
        let answer = await route(request, client: client)
        guard request.method == .head else { return answer }
        // HEAD: the GET answer's status and headers, without its body.
        var headers = answer.headers
        if headers[.contentLength] == nil, let length = answer.body.contentLength { headers[.contentLength] = String(length) }
        return Response(status: answer.status, headers: headers, body: ResponseBody())
    }

    /// Refuses a request that names another host (DNS rebinding), and a state change from another site or
    /// not in JSON (`RequestOrigin`); nil lets it through.
    private func screen(_ request: Request) -> Response? {
        let authority = request.head.authority
        guard RequestOrigin.hostAllowed(authority, listenHost: backend.access.listen.flatMap(RequestOrigin.hostName)) else {
            return Self.json(
                APIDocuments.Problem(error: "this server does not answer for host \((authority ?? "").prefix(100)); use its address", field: "host"),
                status: .misdirectedRequest)
        }
        guard request.method != .get, request.method != .head else { return nil }
        if let refusal = RequestOrigin.crossSiteRefusal(
            origin: request.headers[.origin], fetchSite: request.headers[Self.secFetchSite], authority: authority)
        {
            return Self.json(APIDocuments.Problem(error: refusal, field: "origin"), status: .forbidden)
        }
        return nil
    }

    private func route(_ request: Request, client: String?) async -> Response {
        let path = request.uri.path
        switch path {
        case "/healthz": return only(.get, request) ?? healthz()
        case "/readyz":
            if let refused = only(.get, request) { return refused }
            return await readyz()
        case "/metrics":
            if let refused = only(.get, request) { return refused }
            return await metrics()
        case "/api/v1/status":
            if let refused = only(.get, request) { return refused }
            return await status()
        case "/api/v1/alerts":
            if let refused = only(.get, request) { return refused }
            return await alerts()
        case "/api/v1/history":
            if let refused = only(.get, request) { return refused }
            return await history(request)
        case "/api/v1/transfers":
            if let refused = only(.get, request) { return refused }
            return await transfers()
        case "/api/v1/listings":
            if let refused = only(.get, request) { return refused }
            return await listings(request)
        case "/api/v1/book":
            if let refused = only(.get, request) { return refused }
            return await book(request)
        case "/":
            if let refused = only(.get, request) { return refused }
            return await page()
        case "/api/v1/silences":
            switch request.method {
            case .get, .head: return await listSilences(request)
            case .post: return await createSilence(request, client: client)
            default: return Self.methodNotAllowed([.get, .head, .post])
            }
        default:
            let prefix = "/api/v1/silences/"
            if path.hasPrefix(prefix), path.count > prefix.count {
                guard request.method == .delete else { return Self.methodNotAllowed([.delete]) }
                return await expireSilence(String(path.dropFirst(prefix.count)), request: request, client: client)
            }
            return Self.json(APIDocuments.Problem(error: "no such endpoint: \(path.prefix(200))"), status: .notFound)
        }
    }

    /// Nil when `request` uses `method`, else the 405 answer.
    private func only(_ method: HTTPRequest.Method, _ request: Request) -> Response? {
        request.method == method || (method == .get && request.method == .head) ? nil : Self.methodNotAllowed(method == .get ? [.get, .head] : [method])
    }

    // MARK: Health

    private func healthz() -> Response {
        let now = backend.clock.now()
        switch backend.liveness.verdict(now: now) {
        case .alive:
            return Self.json(APIDocuments.Health(status: "ok"))
        case .notStarted:
            return Self.json(APIDocuments.Health(status: "starting", reason: "the evaluator loop has not started"), status: .serviceUnavailable)
        case .stopped:
            return Self.json(APIDocuments.Health(status: "stopped", reason: "the evaluator loop has stopped"), status: .serviceUnavailable)
        case .stuck(let since):
            let seconds = Int(now.timeIntervalSince(since))
            return Self.json(
                APIDocuments.Health(status: "stuck", reason: "the evaluator loop has been busy with one input for \(seconds) s"),
                status: .serviceUnavailable)
        }
    }

    private func readyz() async -> Response {
        let view = await backend.loop.snapshot { (settled: $0.isSettled, awaiting: $0.awaitedSources) }
        let role = backend.ha.role.rawValue
        if view.settled { return Self.json(APIDocuments.Health(status: "ready", role: role)) }
        return Self.json(APIDocuments.Health(status: "waiting", awaiting: view.awaiting, role: role), status: .serviceUnavailable)
    }

    // MARK: Reads

    private func metrics() async -> Response {
        guard let metrics = backend.metrics else {
            return Self.json(APIDocuments.Problem(error: "metrics are not collected in this process"), status: .notFound)
        }
        let bytes = await metrics.scrape(backend)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private func status() async -> Response {
        let now = backend.clock.now()
        let view = await backend.status(now: now)
        var document = APIDocuments.status(view, version: backend.version, startedAt: backend.startedAt, listen: backend.access.listen)
        document.role = backend.ha.role.rawValue
        let routing = await backend.loop.snapshot { $0.settings.routing }
        if !routing.isEmpty { document.routing = APIDocuments.Routing(routing, now: now) }
        document.rules = APIDocuments.RuleAssets.rules(await backend.loop.snapshot { $0.allAssetRules })
        return Self.json(document)
    }

    private func alerts() async -> Response {
        let now = backend.clock.now()
        let alerts = await backend.loop.snapshot { $0.firingAlerts(now: now) }
        return Self.json(APIDocuments.Alerts(alerts: alerts.map(APIDocuments.Alert.init)))
    }

    private func page() async -> Response {
        let now = backend.clock.now()
        let view = await backend.status(now: now)
        let silences = (try? await backend.silences?.silences(now: now)) ?? []
        let routing = await backend.loop.snapshot { $0.settings.routing }
        let html = StatusPage.render(
            view, silences: silences, displayTimeZones: await backend.loop.snapshot { $0.settings.displayTimeZones },
            version: backend.version, startedAt: backend.startedAt, listen: backend.access.listen, sparklines: await sparklines(now: now),
            routing: routing.isEmpty ? nil : APIDocuments.Routing(routing, now: now))
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
