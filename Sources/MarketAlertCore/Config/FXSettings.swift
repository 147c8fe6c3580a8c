import Foundation

package enum FXProviderKind: String, Sendable, CaseIterable, Codable {
    case dunamu, openexchangerates, frankfurter
}

package struct FXProviderSettings: Sendable, Equatable {
    package var kind: FXProviderKind
    package var baseURL: URL
    /// Name of the secret holding the OpenExchangeRates app id (environment or `$CREDENTIALS_DIRECTORY`).
    package var appIDEnv: String?

    package init(kind: FXProviderKind, baseURL: URL, appIDEnv: String? = nil) {
        self.kind = kind
        self.baseURL = baseURL
        self.appIDEnv = appIDEnv
    }
}

package struct FXAlertSettings: Sendable, Equatable {
    package var base: String
    package var quote: String
    package var changePct: Double

    package init(base: String, quote: String, changePct: Double) {
        self.base = base
        self.quote = quote
        self.changePct = changePct
    }

    package var pair: String { "\(base)/\(quote)" }
}

package struct FXSettings: Sendable, Equatable {
    package var pollInterval: Duration = .seconds(60)
    package var maxAge: Duration = .seconds(15 * 60)
    package var timeout: Duration = .seconds(5)
    /// A selected rate that moves more than this (percent) from the last accepted one is held until a second
    /// provider or the next poll confirms it (`USD/KRW` at 1 must never make a 129,900% kimchi premium).
    package var maxMovePct: Double = 10
    package var providers: [FXProviderSettings] = []
    package var alerts: [FXAlertSettings] = []
    /// v3 `fx.usdt_krw` (nil: no USDT/KRW rate) and the tether premium alerts (`pair: USDT/KRW`).
    package var usdtKrw: USDTKRWSettings?
    package var tetherAlerts: [TetherPremiumAlertSettings] = []

    package init() {}
}
