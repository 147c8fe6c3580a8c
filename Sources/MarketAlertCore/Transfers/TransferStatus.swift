import Foundation

/// Whether coins can move in one direction (withdraw or deposit) on an exchange. `unknown` (no key for a
/// private endpoint, the asset not listed, the exchange not asked yet) is never treated as `suspended`.
package enum TransferState: String, Sendable, Codable, CaseIterable {
    case ok, suspended, unknown

    /// Over several networks: ok when any network is; suspended when none is ok and one says suspended.
    package static func combined<S: Sequence>(_ states: S) -> TransferState where S.Element == TransferState {
        var sawSuspended = false
        for state in states {
            if state == .ok { return .ok }
            if state == .suspended { sawSuspended = true }
        }
        return sawSuspended ? .suspended : .unknown
    }

    package init(enabled: Bool?) {
        switch enabled {
        case true?: self = .ok
        case false?: self = .suspended
        case nil: self = .unknown
        }
    }
}

/// One network (chain) of an asset as the exchange describes it (`ERC20`, `TRX`, …).
package struct NetworkTransferStatus: Sendable, Equatable, Codable {
    package var network: String
    package var withdraw: TransferState
    package var deposit: TransferState

    package init(network: String, withdraw: TransferState, deposit: TransferState) {
        self.network = network
        self.withdraw = withdraw
        self.deposit = deposit
    }
}

/// An asset's deposit and withdrawal status on one exchange, per network where the exchange says so; a
/// direction is ok when any network is (`TransferState.combined`).
package struct AssetTransferStatus: Sendable, Equatable, Codable {
    package var exchange: ExchangeID
    package var asset: String
    package var withdraw: TransferState
    package var deposit: TransferState
    package var networks: [NetworkTransferStatus]
    /// When the exchange's answer was received (nil: never asked).
    package var checkedAt: Date?

    package init(
        exchange: ExchangeID, asset: String, withdraw: TransferState, deposit: TransferState,
        networks: [NetworkTransferStatus] = [], checkedAt: Date?
    ) {
        self.exchange = exchange
        self.asset = asset
        self.withdraw = withdraw
        self.deposit = deposit
        self.networks = networks
        self.checkedAt = checkedAt
    }

    /// From the networks alone: each direction combined over them.
    package init(exchange: ExchangeID, asset: String, networks: [NetworkTransferStatus], checkedAt: Date?) {
        self.init(
            exchange: exchange, asset: asset, withdraw: .combined(networks.map(\.withdraw)),
            deposit: .combined(networks.map(\.deposit)), networks: networks, checkedAt: checkedAt)
    }

    /// Nothing known (not asked, or not listed by the exchange).
    package static func unknown(_ exchange: ExchangeID, _ asset: String, checkedAt: Date? = nil) -> AssetTransferStatus {
        AssetTransferStatus(exchange: exchange, asset: asset, withdraw: .unknown, deposit: .unknown, checkedAt: checkedAt)
    }

    /// Either direction suspended.
    package var isSuspended: Bool { withdraw == .suspended || deposit == .suspended }
}

/// One poll of an exchange's transfer status: the statuses of the assets asked for (an asset the answer
/// does not list is `unknown`).
package struct TransferReport: Sendable, Equatable {
    package var exchange: ExchangeID
    package var checkedAt: Date
    package var statuses: [String: AssetTransferStatus]

    package init(exchange: ExchangeID, checkedAt: Date, statuses: [String: AssetTransferStatus]) {
        self.exchange = exchange
        self.checkedAt = checkedAt
        self.statuses = statuses
    }

    /// The report for `assets` from the rows an adapter decoded (by asset, upper case): missing ones unknown.
    package init(exchange: ExchangeID, checkedAt: Date, assets: Set<String>, decoded: [String: [NetworkTransferStatus]]) {
        var statuses: [String: AssetTransferStatus] = [:]
        for asset in assets {
            if let networks = decoded[asset], !networks.isEmpty {
                statuses[asset] = AssetTransferStatus(exchange: exchange, asset: asset, networks: networks, checkedAt: checkedAt)
            } else {
                statuses[asset] = .unknown(exchange, asset, checkedAt: checkedAt)
            }
        }
        self.init(exchange: exchange, checkedAt: checkedAt, statuses: statuses)
    }
}

extension AssetTransferStatus {
    enum CodingKeys: String, CodingKey { case exchange, asset, withdraw, deposit, networks, checkedAt = "checked_at" }

    /// As the schema's `transfer` object; `checked_at` is null, not absent, when never asked.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(exchange, forKey: .exchange)
        try container.encode(asset, forKey: .asset)
        try container.encode(withdraw, forKey: .withdraw)
        try container.encode(deposit, forKey: .deposit)
        try container.encode(networks, forKey: .networks)
        try container.encode(checkedAt, forKey: .checkedAt)
    }
}

/// v3 `premium.transfer`: whether the asset can leave the low (buy) exchange and reach the high (sell) one.
package struct PremiumTransferDetail: Sendable, Equatable, Codable {
    package var withdrawLow: TransferState
    package var depositHigh: TransferState
    /// The older of the two checks (nil: either side never checked).
    package var checkedAt: Date?

    package init(withdrawLow: TransferState, depositHigh: TransferState, checkedAt: Date?) {
        self.withdrawLow = withdrawLow
        self.depositHigh = depositHigh
        self.checkedAt = checkedAt
    }

    /// From the low side's and the high side's statuses.
    package init(low: AssetTransferStatus, high: AssetTransferStatus) {
        let checked: Date? = if let l = low.checkedAt, let h = high.checkedAt { min(l, h) } else { nil }
        self.init(withdrawLow: low.withdraw, depositHigh: high.deposit, checkedAt: checked)
    }

    enum CodingKeys: String, CodingKey { case withdrawLow = "withdraw_low", depositHigh = "deposit_high", checkedAt = "checked_at" }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(withdrawLow, forKey: .withdrawLow)
        try container.encode(depositHigh, forKey: .depositHigh)
        try container.encode(checkedAt, forKey: .checkedAt)
    }
}
