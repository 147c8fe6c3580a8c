import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// The runtime an exchange's transfer-status poller test needs: `exchange` and Gate (its recorded currencies,
/// served here) on `server`, one rule over `assets` with `transfers: annotate`, polled every 60 s on `clock`.
/// The test routes `exchange`'s own endpoint on `server` before it starts.
enum TransferPollerWorld {
    static func start(
        _ exchange: ExchangeID, assets: [String], server: MockHTTPServer, client: HTTPClient, clock: ManualClock
    ) async throws -> RuntimeHarness {
        server.route("/api/v4/spot/currencies", response: .data(try Fixtures.data("gate/spot-currencies-USDT-ccxtsrc.json")))
        var settings = Settings()
        for id in [exchange, .gate] { settings.exchanges[id] = ExchangeSettings(id: id, baseURL: server.baseURL) }
        var rule = PremiumRule(
            name: "global", assets: assets, exchanges: [exchange, .gate], quotes: ["USDT"], levels: PremiumRule.defaultLevels,
            clearPct: 0.04)
        rule.transfers = .annotate
        settings.premium.rules = [rule]
        var transfers = TransferSettings()
        transfers.pollInterval = .seconds(60)
        settings.transfers = transfers
        let fetcher = AsyncHTTPFetcher(client: client, clock: clock)
        var factory = ProducerFactory(quoteSource: { _ in nil })
        factory.transferPoller = { settings in
            TransferPoller.make(
                settings, fetcher: fetcher, secrets: SecretResolver(environment: [:]), clock: clock,
                logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        }
        return try await RuntimeHarness.start(settings: settings, store: try SQLiteStore(inMemory: ()), factory: factory, clock: clock)
    }
}
