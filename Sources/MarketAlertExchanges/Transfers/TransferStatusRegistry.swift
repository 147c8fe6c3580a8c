import Foundation
import MarketAlertCore

/// The exchanges whose deposit and withdrawal status this build can read, each adapter in its exchange's
/// folder (`<Name>TransferStatus.swift`). An exchange not listed here keeps every status `unknown`.
package enum TransferStatusRegistry {
    package static let adapters: [ExchangeID: TransferStatusAdapter] = {
        var byID: [ExchangeID: TransferStatusAdapter] = [:]
        for adapter in [
            BinanceTransferStatus.adapter, UpbitTransferStatus.adapter, BitgetTransferStatus.adapter, CoinbaseTransferStatus.adapter,
            CoinoneTransferStatus.adapter, GateTransferStatus.adapter, KuCoinTransferStatus.adapter, HTXTransferStatus.adapter,
            KrakenTransferStatus.adapter, BitfinexTransferStatus.adapter, BithumbTransferStatus.adapter,
            OKXTransferStatus.adapter, BybitTransferStatus.adapter,
        ] {
            byID[adapter.exchange] = adapter
        }
        return byID
    }()

    package static subscript(_ id: ExchangeID) -> TransferStatusAdapter? { adapters[id] }
}
