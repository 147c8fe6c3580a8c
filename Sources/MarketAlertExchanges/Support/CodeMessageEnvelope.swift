import Foundation
import MarketAlertCore
import MarketAlertKit

/// The `{"code": …, "msg": …, "data": [rows]}` envelope Bitget and OKX wrap their ticker lists in. Only the
/// success code differs (Bitget `"00000"`, OKX `"0"`); any other code is `.api` (`code 40034: …`), and its
/// `data` is then `null` or of no interest.
package struct CodeMessageEnvelope {
    package let exchange: ExchangeID
    package let successCode: String
    /// The row field that names the market (`symbol`, `instId`).
    package let marketField: String

    /// The rows of `body` whose market the collector watches (the others are pruned before decoding), with
    /// the collector's `listCount` set to the length of the whole list.
    package func watchedRows<Row: Decodable>(
        _ row: Row.Type, in body: Data, collector: inout QuoteCollector
    ) throws(SourceError) -> [Row] {
        let source = exchange.rawValue
        let pruned = try ExchangeJSON.prune(body, source: source, listPath: ["data"], keyField: marketField, keep: { collector.isWatched($0) })
        let envelope = try ExchangeJSON.decode(Wire<Row>.self, from: pruned.document, source: source)
        if let error = error(envelope) { throw error }
        guard let list = envelope.data else {
            throw SourceError(source: source, kind: .decode, message: "data: missing")
        }
        collector.listCount = pruned.elementCount ?? list.count
        return list
    }

    /// Every row of `body`, for the whole-market reads (market lists, bulk volumes): a failure code is `.api`,
    /// a missing `data` `.decode`.
    package func allRows<Row: Decodable>(_ row: Row.Type, in body: Data) throws(SourceError) -> [Row] {
        let source = exchange.rawValue
        let envelope = try ExchangeJSON.decode(Wire<Row>.self, from: body, source: source)
        if let error = error(envelope) { throw error }
        guard let list = envelope.data else {
            throw SourceError(source: source, kind: .decode, message: "data: missing")
        }
        return list
    }

    /// The `.api` error in a body (of a 4xx answer) that is this envelope with a failure code.
    package func apiError<Row: Decodable>(in body: Data, rows: Row.Type) -> SourceError? {
        guard let envelope = try? JSONDecoder().decode(Wire<Row>.self, from: body) else { return nil }
        return error(envelope)
    }

    private func error<Row>(_ envelope: Wire<Row>) -> SourceError? {
        guard envelope.code.text != successCode else { return nil }
        return SourceError(source: exchange.rawValue, kind: .api, message: "code \(envelope.code.text): \(envelope.msg ?? "")")
    }

    private struct Wire<Row: Decodable>: Decodable {
        var code: WireCode
        var msg: String?
        var data: [Row]?
    }
}
