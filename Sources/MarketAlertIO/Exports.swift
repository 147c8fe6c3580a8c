// The lower layers, re-exported while this target still holds every layer above them (storage, delivery, HA,
// operations and the daemon's wiring): a file here, a test or the executable that imports MarketAlertIO sees
// them too. The lower layers themselves cannot see this target; Package.swift draws the layers.
@_exported import MarketAlertConfigReader
@_exported import MarketAlertExchanges
@_exported import MarketAlertKit
