import Foundation
import MarketAlertCore
import Synchronization

/// Builders for the engine tests: settings, quotes, FX rounds and an engine that counts its event ids.
enum EngineTestKit {
    static let start = Date(timeIntervalSince1970: 1_773_108_000)  // 2026-03-10 02:00 UTC, a Tuesday

    static func exchange(_ id: ExchangeID) -> ExchangeSettings {
        ExchangeSettings(id: id, baseURL: URL(string: "http://127.0.0.1:1/\(id.rawValue)") ?? URL(fileURLWithPath: "/"))
    }

    /// A rule over `exchanges` with the default 0.05 / 0.1 levels and clear at 0.04.
    static func rule(
        _ name: String, exchanges: [ExchangeID], quotes: [String] = ["USDT"], assets: [String] = ["BTC"], forDuration: Duration = .zero
    ) -> PremiumRule {
        PremiumRule(
            name: name, assets: assets, exchanges: exchanges, quotes: quotes, levels: PremiumRule.defaultLevels, clearPct: 0.04,
            forDuration: forDuration)
    }

    static func settings(rules: [PremiumRule], fx: Bool = false) -> Settings {
        var settings = Settings()
        for rule in rules {
            for id in rule.exchanges { settings.exchanges[id] = exchange(id) }
        }
        settings.premium.rules = rules
        if fx {
            settings.fx.providers = [
                FXProviderSettings(kind: .dunamu, baseURL: URL(string: "http://127.0.0.1:1/dunamu") ?? URL(fileURLWithPath: "/")),
                FXProviderSettings(kind: .frankfurter, baseURL: URL(string: "http://127.0.0.1:1/frankfurter") ?? URL(fileURLWithPath: "/")),
            ]
        }
        return settings
    }

    /// One quote of `asset` on `exchange` at `price` (last), in `quote`.
    static func quote(_ exchange: ExchangeID, _ price: String, asset: String = "BTC", quote: String = "USDT", at: Date) -> Quote {
        Quote(
            exchange: exchange, market: "\(asset)\(quote)", base: asset, quote: quote, last: Price(price), receivedAt: at)
    }

    /// An FX round in which `provider` quotes USD/KRW at `rate` at `at`.
    static func fxRound(_ provider: FXProviderKind, rate: String, at: Date) -> EngineEvent {
        var book = FXRateBook()
        if let price = Price(rate) {
            book.recordSuccess(provider, rates: [FXRate(base: "USD", quote: "KRW", rate: price, provider: provider.rawValue, at: at)], at: at)
        }
        let failover = FXFailover(chain: [.standard(.dunamu), .standard(.frankfurter)], currencies: ["KRW"], maxAge: .seconds(900))
        return .fxRound(book, failover)
    }

    static func engine(_ settings: Settings, restored: AlertEngine.Restored = .init(), at now: Date = start) -> AlertEngine {
        let counter = IDCounter()
        return AlertEngine(settings: settings, restored: restored, now: now) { counter.next() }
    }

    static func events(_ actions: [EngineAction]) -> [AlertEvent] {
        actions.flatMap { action -> [AlertEvent] in
            if case .publish(let publication) = action { return publication.events }
            return []
        }
    }

    static func statuses(_ actions: [EngineAction]) -> [String] {
        actions.compactMap { action in
            if case .status(let line) = action { return line }
            return nil
        }
    }
}

/// `event-1`, `event-2`, …
final class IDCounter: Sendable {
    private let value = Mutex(0)
    func next() -> String { "event-\(value.withLock { $0 += 1; return $0 })" }
}
