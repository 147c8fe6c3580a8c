// The layers below, re-exported for the executable, the bench and the tests, which import only this target.
// The lower layers themselves cannot see this target or each other's upper neighbours; Package.swift draws
// the layers.
@_exported import MarketAlertConfigReader
@_exported import MarketAlertDelivery
@_exported import MarketAlertEngineLoop
@_exported import MarketAlertExchanges
@_exported import MarketAlertHA
@_exported import MarketAlertKit
@_exported import MarketAlertOperations
@_exported import MarketAlertStorage
