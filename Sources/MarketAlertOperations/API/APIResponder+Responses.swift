import Hummingbird
import NIOCore

/// The responses every route shares: JSON bodies, 405 with `Allow`, and the HA and store refusals.
extension APIResponder {
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
