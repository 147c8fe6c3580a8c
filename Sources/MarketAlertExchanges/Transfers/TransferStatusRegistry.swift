import Foundation
import MarketAlertCore

/// The exchanges whose deposit and withdrawal status this build can read: each exchange's descriptor names
/// its adapter (`transferStatus`, from `<Name>TransferStatus.swift` in its folder). An exchange without one
/// keeps every status `unknown`.
package enum TransferStatusRegistry {
    package static let adapters: [ExchangeID: TransferStatusAdapter] = {
        var byID: [ExchangeID: TransferStatusAdapter] = [:]
        for descriptor in ExchangeRegistry.standard.listed {
            if let adapter = descriptor.transferStatus { byID[adapter.exchange] = adapter }
        }
        return byID
    }()

    package static subscript(_ id: ExchangeID) -> TransferStatusAdapter? { adapters[id] }
}
