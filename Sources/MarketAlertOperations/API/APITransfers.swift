import Foundation
import Hummingbird
import MarketAlertCore

/// v3 `GET /api/v1/transfers`: the deposit and withdrawal status of every asset the rules watch, per
/// exchange (`unknown` with `checked_at: null` where nothing was learned).
extension APIResponder {
    package struct TransfersDocument: Encodable {
        package var transfers: [AssetTransferStatus]
    }

    package func transfers() async -> Response {
        let table = await backend.loop.snapshot { $0.transferTable() }
        return Self.json(TransfersDocument(transfers: table))
    }
}
