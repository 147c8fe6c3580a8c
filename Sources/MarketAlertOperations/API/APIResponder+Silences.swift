import Foundation
import Hummingbird
import MarketAlertCore
import MarketAlertStorage

/// `/api/v1/silences[/{id}]`: the list (paged), and creating and expiring one (with the token, where one is set).
extension APIResponder {
    /// The most silences active or pending at once: each is matched against every notification, and a
    /// forgotten script must not fill the store.
    package static let maximumSilences = 1_000

    /// `GET /api/v1/silences?limit=N&offset=M`: at most `limit` (default and most `maximumSilences`) silences,
    /// oldest first, from `offset`; `next` is the following page's path while more remain.
    func listSilences(_ request: Request) async -> Response {
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

    func createSilence(_ request: Request, client: String?) async -> Response {
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
            } catch {
                return storeFailure(error, cannot: "save", could: "saved")
            }
            backend.logger.notice("silence created", metadata: [
                "silence": "\(silence.id)", "key": "\(silence.matchers.key)", "ends_at": "\(Timestamp.rfc3339(silence.endsAt))",
                "created_by": "\(silence.createdBy)",
            ])
            return Self.json(APIDocuments.Created(id: silence.id), status: .created)
        }
    }

    func expireSilence(_ id: String, request: Request, client: String?) async -> Response {
        if let refused = authorize(request, client: client) { return refused }
        guard let store = backend.silences else { return Self.noStore() }
        let now = backend.clock.now()
        do {
            guard try await store.expireSilence(id: id, at: now) else {
                return Self.json(APIDocuments.Problem(error: "no silence with id \(id.prefix(100))", field: "id"), status: .notFound)
            }
            try await backend.pushSilences(now: now)
        } catch {
            return storeFailure(error, cannot: "expire", could: "expired")
        }
        backend.logger.notice("silence expired", metadata: ["silence": "\(id)"])
        return Self.json(APIDocuments.Created(id: id))
    }

    /// The answer to a silence change the store refused: a standby's fence (503, change it on the leader), else
    /// the error logged and a 500 that does not repeat it.
    private func storeFailure(_ error: any Error, cannot action: String, could done: String) -> Response {
        if error is HAWriteRefused { return Self.notLeader() }
        backend.logger.error("state store: cannot \(action) a silence: \(error)")
        return Self.json(APIDocuments.Problem(error: "the silence could not be \(done)"), status: .internalServerError)
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
}
