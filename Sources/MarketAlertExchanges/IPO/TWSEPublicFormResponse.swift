import Foundation
import MarketAlertCore
import MarketAlertKit

/// TWSE's JSON envelope for `publicForm`: `{"stat":"OK","fields":[…],"data":[[…],…]}` (the live answer also
/// has `title`, `date`, `notes`, `total`, which are not needed and may be absent). Every cell is a string;
/// a number or null cell is taken as its text so that one odd cell does not sink the whole list.
package struct TWSEPublicFormResponse: Decodable, Sendable {
    package var stat: String
    package var fields: [String]?
    package var data: [[Cell]]?

    package struct Cell: Decodable, Sendable {
        package var text: String

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                text = ""
            } else if let string = try? container.decode(String.self) {
                text = string
            } else if let number = try? container.decode(Decimal.self) {
                text = number.description
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "cell is neither text nor a number")
            }
        }
    }

    /// TWSE's answer when a query matches nothing (`很抱歉，沒有符合條件的資料!`, with an ASCII or full-width
    /// exclamation mark), e.g. a year with no offerings yet. Not an error: the list is empty.
    package static let noDataMarker = "沒有符合條件的資料"

    /// The header and rows, or an error naming `source`: `.decode` when the body is not this JSON shape
    /// (HTML, truncated), `.api` when `stat` is neither `OK` nor the no-data answer.
    package static func decode(_ body: Data, source: String) throws(SourceError) -> (fields: [String], rows: [[String]]) {
        let response: TWSEPublicFormResponse
        do {
            response = try JSONDecoder().decode(TWSEPublicFormResponse.self, from: body)
        } catch {
            throw SourceError(source: source, kind: .decode, message: "not a publicForm JSON answer: \(Self.describe(error))")
        }
        let stat = response.stat.trimmingCharacters(in: .whitespacesAndNewlines)
        if stat.contains(noDataMarker) { return ([], []) }
        guard stat == "OK" else {
            throw SourceError(source: source, kind: .api, message: "stat \"\(String(stat.prefix(80)))\"")
        }
        let rows = (response.data ?? []).map { $0.map(\.text) }
        guard let fields = response.fields else {
            if rows.isEmpty { return ([], []) }
            throw SourceError(source: source, kind: .decode, message: "stat OK with \(rows.count) rows but no fields header")
        }
        return (fields, rows)
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): "missing \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.isEmpty
                ? context.debugDescription
                : "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "\(error)"
        }
    }
}
