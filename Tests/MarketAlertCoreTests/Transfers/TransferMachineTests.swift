import Foundation
import MarketAlertCore
import Testing

/// Kind `transfer` on virtual time: a suspension fires once, a resumption resolves once, `unknown` never
/// does either, and a restart or an HA takeover with the committed states repeats nothing.
@Suite struct TransferMachineTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    static func settings(mode: TransferMode = .annotate, notify: Bool = true) -> Settings {
        var rule = Kit.rule("kimchi", exchanges: [.upbit, .binance], quotes: ["USDT"])
        rule.transfers = mode
        var settings = Kit.settings(rules: [rule])
        var transfers = TransferSettings()
        transfers.notify = notify
        settings.transfers = transfers
        return settings
    }

    static func report(_ exchange: ExchangeID, withdraw: TransferState, deposit: TransferState, asset: String = "BTC", at: Date) -> EngineEvent {
        let networks = [NetworkTransferStatus(network: asset, withdraw: withdraw, deposit: deposit)]
        return .transfers(TransferReport(exchange: exchange, checkedAt: at, assets: [asset], decoded: [asset: networks]))
    }

    /// The transfer events and the transfer state records of `actions`.
    static func transferOutput(_ actions: [EngineAction]) -> (events: [AlertEvent], states: [StateRecord], deleted: [String]) {
        var result: (events: [AlertEvent], states: [StateRecord], deleted: [String]) = ([], [], [])
        for case .publish(let publication) in actions {
            result.events += publication.events.filter { $0.kind == .transfer }
            result.states += publication.states.filter { $0.kind == TransferAlertState.kind }
            result.deleted += publication.deletedKeys.filter { $0.hasPrefix("transfer/") }
        }
        return result
    }

    @Test func aSuspensionFiresOnceAndItsResumptionResolvesOnce() {
        var engine = Kit.engine(Self.settings())
        let t1 = t0.addingTimeInterval(300)
        let first = Self.transferOutput(engine.handle(Self.report(.upbit, withdraw: .suspended, deposit: .ok, at: t1), now: t1))
        #expect(first.events.map(\.status) == ["firing"])
        let event = first.events.first
        #expect(event?.key == "transfer/upbit/BTC")
        #expect(event?.severity == .warning)
        #expect(event?.transfer?.withdraw == .suspended)
        #expect(event?.transfer?.deposit == .ok)
        #expect(event?.summary.hasPrefix("upbit: BTC withdrawals suspended (deposits ok)") == true, "\(event?.summary ?? "")")
        #expect(first.states.map(\.key) == ["transfer/upbit/BTC"], "the firing state is committed with its notification")

        // The same status at the next poll, and deposits stopping too: nothing more is sent.
        let t2 = t1.addingTimeInterval(300)
        #expect(Self.transferOutput(engine.handle(Self.report(.upbit, withdraw: .suspended, deposit: .ok, at: t2), now: t2)).events.isEmpty)
        let t3 = t2.addingTimeInterval(300)
        #expect(Self.transferOutput(engine.handle(Self.report(.upbit, withdraw: .suspended, deposit: .suspended, at: t3), now: t3)).events.isEmpty)

        let t4 = t3.addingTimeInterval(300)
        let resumed = Self.transferOutput(engine.handle(Self.report(.upbit, withdraw: .ok, deposit: .ok, at: t4), now: t4))
        #expect(resumed.events.map(\.status) == ["resolved"])
        #expect(resumed.events.first?.severity == .info)
        #expect(resumed.deleted == ["transfer/upbit/BTC"])
        let t5 = t4.addingTimeInterval(300)
        #expect(Self.transferOutput(engine.handle(Self.report(.upbit, withdraw: .ok, deposit: .ok, at: t5), now: t5)).events.isEmpty)
    }

    @Test func unknownNeverFiresNorResolves() {
        var engine = Kit.engine(Self.settings())
        let t1 = t0.addingTimeInterval(60)
        #expect(Self.transferOutput(engine.handle(Self.report(.binance, withdraw: .unknown, deposit: .unknown, at: t1), now: t1)).events.isEmpty)
        // An asset the exchange does not list is unknown too.
        let unlisted = EngineEvent.transfers(TransferReport(exchange: .binance, checkedAt: t1, assets: ["BTC"], decoded: [:]))
        #expect(Self.transferOutput(engine.handle(unlisted, now: t1)).events.isEmpty)
        // Firing, then unknown: still firing (nothing is known to have resumed).
        _ = engine.handle(Self.report(.binance, withdraw: .ok, deposit: .suspended, at: t1), now: t1)
        let t2 = t1.addingTimeInterval(60)
        #expect(Self.transferOutput(engine.handle(unlisted, now: t2)).events.isEmpty)
        #expect(engine.transferTable().first { $0.exchange == .binance }?.withdraw == .unknown)
    }

    @Test func oneWorkingNetworkKeepsTheDirectionOk() {
        let networks = [
            NetworkTransferStatus(network: "ERC20", withdraw: .suspended, deposit: .ok),
            NetworkTransferStatus(network: "TRC20", withdraw: .ok, deposit: .suspended),
        ]
        let status = AssetTransferStatus(exchange: .binance, asset: "USDT", networks: networks, checkedAt: t0)
        #expect(status.withdraw == .ok)
        #expect(status.deposit == .ok)
        #expect(!status.isSuspended)
        let stopped = AssetTransferStatus(
            exchange: .binance, asset: "USDT",
            networks: [NetworkTransferStatus(network: "ERC20", withdraw: .suspended, deposit: .unknown)], checkedAt: t0)
        #expect(stopped.withdraw == .suspended)
        #expect(stopped.deposit == .unknown)
        #expect(TransferState.combined([]) == .unknown)
    }

    @Test func aRestartWithTheCommittedStateSendsNoDuplicate() throws {
        var store = StoreModel()
        var previous = Kit.engine(Self.settings())
        store.apply(previous.handle(Self.report(.upbit, withdraw: .suspended, deposit: .ok, at: t0), now: t0))
        let restored = try store.restored()
        #expect(restored.transfers["transfer/upbit/BTC"]?.firing == true)

        let t1 = t0.addingTimeInterval(600)
        var engine = Kit.engine(Self.settings(), restored: restored, at: t1)
        #expect(Self.transferOutput(engine.handle(Self.report(.upbit, withdraw: .suspended, deposit: .ok, at: t1), now: t1)).events.isEmpty)
        // It resumed while the daemon was down: resolved once at the first poll, and never again.
        let t2 = t1.addingTimeInterval(300)
        var resumedEngine = Kit.engine(Self.settings(), restored: restored, at: t2)
        let actions = resumedEngine.handle(Self.report(.upbit, withdraw: .ok, deposit: .ok, at: t2), now: t2)
        #expect(Self.transferOutput(actions).events.map(\.status) == ["resolved"])
        store.apply(actions)
        var third = Kit.engine(Self.settings(), restored: try store.restored(), at: t2)
        #expect(Self.transferOutput(third.handle(Self.report(.upbit, withdraw: .ok, deposit: .ok, at: t2), now: t2)).events.isEmpty)
    }

    @Test func aTakeoverAdoptsTheLeadersStatesWithoutRepeatingThem() throws {
        var store = StoreModel()
        var leader = Kit.engine(Self.settings())
        var standby = Kit.engine(Self.settings())
        // Both see the same poll; only the leader's decision is committed.
        let actions = leader.handle(Self.report(.upbit, withdraw: .suspended, deposit: .ok, at: t0), now: t0)
        #expect(Self.transferOutput(actions).events.count == 1)
        store.apply(actions)
        _ = standby.handle(Self.report(.upbit, withdraw: .suspended, deposit: .ok, at: t0), now: t0)
        let t1 = t0.addingTimeInterval(20)
        #expect(Self.transferOutput(standby.adopt(try store.restored(), now: t1)).events.isEmpty, "the leader already notified")
        // A takeover whose store holds nothing (the leader never committed): the new leader notifies once.
        var other = Kit.engine(Self.settings())
        _ = other.handle(Self.report(.upbit, withdraw: .suspended, deposit: .ok, at: t0), now: t0)
        let adopted = Self.transferOutput(other.adopt(AlertEngine.Restored(), now: t1))
        #expect(adopted.events.map(\.status) == ["firing"])
        let t2 = t1.addingTimeInterval(300)
        #expect(Self.transferOutput(other.handle(Self.report(.upbit, withdraw: .suspended, deposit: .ok, at: t2), now: t2)).events.isEmpty)
    }

    @Test func withoutNotifyTheStatusesAreKeptButNothingIsSent() {
        var engine = Kit.engine(Self.settings(notify: false))
        #expect(Self.transferOutput(engine.handle(Self.report(.upbit, withdraw: .suspended, deposit: .ok, at: t0), now: t0)).events.isEmpty)
        #expect(engine.transferTable().first { $0.exchange == .upbit }?.withdraw == .suspended)
    }
}

/// What a state store holds after the engine's publications: rows written and deleted as committed, decoded
/// back as `StateRestore` does.
struct StoreModel {
    private var rows: [String: StateRecord] = [:]

    mutating func apply(_ actions: [EngineAction]) {
        for case .publish(let publication) in actions {
            for record in publication.states { rows[record.key] = record }
            for key in publication.deletedKeys { rows[key] = nil }
        }
    }

    func restored() throws -> AlertEngine.Restored {
        var restored = AlertEngine.Restored()
        for record in rows.values where record.kind == TransferAlertState.kind {
            restored.transfers[record.key] = try JSONDecoder().decode(TransferAlertState.self, from: record.data)
        }
        return restored
    }
}
