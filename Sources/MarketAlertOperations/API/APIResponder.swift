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

    // MARK: Silences

    /// The most silences active or pending at once: each is matched against every notification, and a
    /// forgotten script must not fill the store.
    package static let maximumSilences = 1_000

    /// `GET /api/v1/silences?limit=N&offset=M`: at most `limit` (default and most `maximumSilences`) silences,
    /// oldest first, from `offset`; `next` is the following page's path while more remain.
    private func listSilences(_ request: Request) async -> Response {
        guard let store = backend.silences else { return Self.noStore() }
        let query = Self.queryItems(request.uri.query)
        let limit = query["limit"].map { Int($0) } ?? Self.maximumSilences
        let offset = query["offset"].map { Int($0) } ?? 0
        guard let limit, (1...Self.maximumSilences).contains(limit) else {
            return Self.json(APIDocuments.Problem(error: "limit: expected a whole number from 1 to \(Self.maximumSilences)", field: "limit"), status: .badRequest)
        }
        guard let offset, offset >= 0 else {
            return Self.json(APIDocuments.Problem(error: "offset: expected a whole number from 0", field: "offset"), status: .badRequest)
        }
        let now = backend.clock.now()
        do {
            let list = try await store.silences(now: now)
            let page = list.dropFirst(offset).prefix(limit)
            let next = offset + page.count < list.count ? "/api/v1/silences?limit=\(limit)&offset=\(offset + page.count)" : nil
            return Self.json(APIDocuments.Silences(silences: page.map { APIDocuments.SilenceDocument(silence: $0, now: now) }, next: next))
        } catch {
            backend.logger.error("state store: cannot read silences: \(error)")
            return Self.json(APIDocuments.Problem(error: "the state store cannot be read"), status: .internalServerError)
        }
    }

    private func createSilence(_ request: Request, client: String?) async -> Response {
        guard RequestOrigin.isJSON(request.headers[.contentType]) else {
            return Self.json(
                APIDocuments.Problem(error: "send the body as Content-Type: application/json", field: "content-type"), status: .unsupportedMediaType)
        }
        if let refused = authorize(request, client: client) { return refused }
        guard let store = backend.silences else { return Self.noStore() }
        var request = request
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: Self.maximumBody) } catch {
            return Self.json(APIDocuments.Problem(error: "the body is larger than \(Self.maximumBody) bytes"), status: .contentTooLarge)
        }
        let now = backend.clock.now()
        switch SilenceRequest.parse(Data(buffer: body), now: now, id: backend.makeID()) {
        case .failure(let problem):
            return Self.json(APIDocuments.Problem(error: problem.field.map { "\($0): \(problem.message)" } ?? problem.message, field: problem.field), status: .badRequest)
        case .success(let silence):
            do {
                let open = try await store.silences(now: now).count { $0.endsAt > now }
                guard open < Self.maximumSilences else {
                    return Self.json(
                        APIDocuments.Problem(error: "\(open) silences are active or pending, the most there may be; expire some first"),
                        status: .conflict)
                }
                try await store.insertSilence(silence)
                try await backend.pushSilences(now: now)
            } catch is HAWriteRefused {
                return Self.notLeader()
            } catch {
                backend.logger.error("state store: cannot save a silence: \(error)")
                return Self.json(APIDocuments.Problem(error: "the silence could not be saved"), status: .internalServerError)
            }
            backend.logger.notice("silence created", metadata: [
                "silence": "\(silence.id)", "key": "\(silence.matchers.key)", "ends_at": "\(Timestamp.rfc3339(silence.endsAt))",
                "created_by": "\(silence.createdBy)",
            ])
            return Self.json(APIDocuments.Created(id: silence.id), status: .created)
        }
    }

    private func expireSilence(_ id: String, request: Request, client: String?) async -> Response {
        if let refused = authorize(request, client: client) { return refused }
        guard let store = backend.silences else { return Self.noStore() }
        let now = backend.clock.now()
        do {
            guard try await store.expireSilence(id: id, at: now) else {
                return Self.json(APIDocuments.Problem(error: "no silence with id \(id.prefix(100))", field: "id"), status: .notFound)
            }
            try await backend.pushSilences(now: now)
        } catch is HAWriteRefused {
            return Self.notLeader()
        } catch {
            backend.logger.error("state store: cannot expire a silence: \(error)")
            return Self.json(APIDocuments.Problem(error: "the silence could not be expired"), status: .internalServerError)
        }
        backend.logger.notice("silence expired", metadata: ["silence": "\(id)"])
        return Self.json(APIDocuments.Created(id: id))
    }

    /// Nil when the request may change state, else the refusal.
    private func authorize(_ request: Request, client: String?) -> Response? {
        switch backend.access.authorize(request.headers[.authorization], client: client, now: backend.clock.now()) {
        case .throttled(let retryAfter):
            var response = Self.json(
                APIDocuments.Problem(error: "too many wrong tokens from this address; try again in \(retryAfter) s", field: "authorization"),
                status: .tooManyRequests)
            response.headers[.retryAfter] = String(retryAfter)
            return response
        case .allowed:
            return nil
        case .unauthorized:
            var response = Self.json(APIDocuments.Problem(error: "a valid Authorization: Bearer token is required", field: "authorization"), status: .unauthorized)
            response.headers[.wwwAuthenticate] = #"Bearer realm="marketalertd""#
            return response
        case .tokenUnavailable(let name):
            return Self.json(
                APIDocuments.Problem(error: "the API token (\(name)) is not configured on the server; nothing can be changed"),
                status: .serviceUnavailable)
        }
    }

    // MARK: Responses

    package static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        var body = APIDocuments.encode(value)
        body.append(UInt8(ascii: "\n"))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    package static func methodNotAllowed(_ allowed: [HTTPRequest.Method]) -> Response {
        var response = json(
            APIDocuments.Problem(error: "method not allowed; use \(allowed.map(\.rawValue).joined(separator: " or "))"),
            status: .methodNotAllowed)
        response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
        return response
    }

    /// HA: silences are changed on the leader (a standby's store is fenced).
    package static func notLeader() -> Response {
        json(APIDocuments.Problem(error: "this instance is a standby in an HA group: change silences on the leader"), status: .serviceUnavailable)
    }

    package static func noStore() -> Response {
        json(APIDocuments.Problem(error: "silences need the state store, which this process does not have"), status: .serviceUnavailable)
    }
}
