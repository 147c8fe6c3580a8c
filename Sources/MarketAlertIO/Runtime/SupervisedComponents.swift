import MarketAlertCore

/// A long-running part the supervisor hosts as a child task (FX monitor, IPO watcher). `run()` returns only
/// when cancelled; the supervisor restarts it when a reload changes its settings.
package protocol SupervisedComponent: Sendable {
    func run() async
    /// One poll of every source, for `marketalertd once`.
    func pollOnce() async
}

/// The FX side as the premium engine sees it.
package protocol FXComponent: SupervisedComponent {
    /// Fresh `USD/<currency>` rates chosen by provider failover at the clock's now.
    func currentUSDRates() async -> [String: FXRate]
}

/// The IPO side as the status line and `once` see it.
package protocol IPOComponent: SupervisedComponent {
    /// Every tracked offering with its state now (for `once`).
    func snapshot() async -> [IPOOfferingStatus]
    /// How many subscription windows are open (or on their last day) now.
    func openWindowCount() async -> Int
}

/// How the supervisor makes its parts; the executable wires the real ones, tests pass their own.
package struct SupervisorComponents: Sendable {
    package var makeQuoteSource: @Sendable (ExchangeSettings) -> any QuoteSource
    /// Makes the FX component for the settings (nil when no FX is configured). `onRatesChanged` asks the
    /// supervisor to re-evaluate premiums.
    package var makeFX: @Sendable (
        _ settings: Settings, _ health: any SourceHealthReporter, _ sink: any AlertSink,
        _ onRatesChanged: @escaping @Sendable () async -> Void
    ) -> (any FXComponent)?
    package var makeIPO: @Sendable (_ settings: Settings, _ health: any SourceHealthReporter, _ sink: any AlertSink) -> (any IPOComponent)?

    package init(
        makeQuoteSource: @escaping @Sendable (ExchangeSettings) -> any QuoteSource,
        makeFX: @escaping @Sendable (Settings, any SourceHealthReporter, any AlertSink, @escaping @Sendable () async -> Void) -> (any FXComponent)? = { _, _, _, _ in nil },
        makeIPO: @escaping @Sendable (Settings, any SourceHealthReporter, any AlertSink) -> (any IPOComponent)? = { _, _, _ in nil }
    ) {
        self.makeQuoteSource = makeQuoteSource
        self.makeFX = makeFX
        self.makeIPO = makeIPO
    }
}

extension FXMonitor: FXComponent {}
