import Foundation
import MarketAlertKit

/// Typed decoding for exchange bodies, turning every failure into a `.decode` `SourceError` whose message
/// names what was wrong (`result.list[0].lastPrice: expected a price`, `truncated JSON at byte 812`).
package enum ExchangeJSON {
    package static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, source: String, userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) throws(SourceError) -> T {
        let decoder = JSONDecoder()
        decoder.userInfo = userInfo
        do {
            return try decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw SourceError(source: source, kind: .decode, message: describe(error, body: data))
        } catch {
            throw SourceError(source: source, kind: .decode, message: "undecodable body: \(error)")
        }
    }

    /// Runs `JSONListPruner`, reporting malformed bytes as `.decode`.
    package static func prune(
        _ data: Data, source: String, listPath: [String], keyField: String, keep: (String) -> Bool
    ) throws(SourceError) -> JSONListPruner.Outcome {
        do {
            return try JSONListPruner.prune(data, listPath: listPath, keyField: keyField, keep: keep)
        } catch {
            throw SourceError(source: source, kind: .decode, message: "invalid JSON: \(error)\(snippetIfNotJSON(data))")
        }
    }

    /// The first byte that is not JSON whitespace (`[` or `{` tells a list from an envelope).
    package static func firstSignificantByte(_ data: Data) -> UInt8? {
        data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
    }

    package static func describe(_ error: DecodingError, body: Data) -> String {
        switch error {
        case .typeMismatch(_, let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)): missing value (\(context.debugDescription))"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return "invalid JSON: \(context.debugDescription)\(snippetIfNotJSON(body))"
            }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "undecodable body"
        }
    }

    /// `result.list[0].lastPrice`.
    package static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "body" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    /// The start of a body that is not JSON at all, so the log line shows what came instead.
    private static func snippetIfNotJSON(_ data: Data) -> String {
        guard let first = firstSignificantByte(data), first != UInt8(ascii: "["), first != UInt8(ascii: "{") else { return "" }
        return " (body starts: \(HTTPAnswer.snippet(data).dropFirst(2)))"
    }
}
