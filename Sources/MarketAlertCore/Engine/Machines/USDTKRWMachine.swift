import Foundation

/// The KRW price of USDT (`fx.usdt_krw`): taken from the quote book — the KRW-USDT markets of the configured
/// exchanges, fed by the same streams and polls as every market — as the first exchange in order with a fresh
/// quote (mid of best bid and ask, the last price without a book). It is guarded as USD/KRW is:
/// - settling: nothing is selected while one of the exchanges is still awaited (a first answer of the second
///   exchange must not stand in for the first);
/// - plausibility: a print more than `implausibleFraction` away from the official USD/KRW (a 10× slip of a
///   digit) is a data error of that exchange: skipped (failover to the next), logged, never a rate;
/// - jumps: a rate that moves more than `fx.max_move_pct` from the last accepted one is held until another
///   exchange's fresh quote agrees, or its own exchange keeps to it for `FXMachine.jumpHold`.
/// Owns the tether premium alert (`USDTKRWMachine+Premium.swift`). `now` in, actions out.
struct USDTKRWMachine: Sendable {
    /// The rate in use: pair USDT/KRW, provider = the exchange, at = the quote's time (nil: none fresh).
    private(set) var selected: FXRate?
    /// The last accepted rate, and a jump held for confirmation with when it was first seen.
    private(set) var accepted: FXRate?
    private(set) var held: FXRate?
    private(set) var heldSince: Date?
    /// Exchanges whose KRW-USDT print is implausible now (logged once per episode).
    private(set) var implausible: Set<ExchangeID> = []
    /// The tether premium alert (`fx/USDT-KRW`) and the premium last computed (nil: a rate is missing).
    var premiumAlert: LeveledAlertStateMachine?
    private(set) var premiumPct: Double?
    /// The `krw_via: usdt` basis last built (`basis(official:)`).
    var basisCache: BasisCache?

    /// Beyond this fraction from the official rate a print is a data error (the tether premium has run to
    /// single-digit percents in stressed weeks; 50% is no market).
    static let implausibleFraction = 0.5

    init(restored: LeveledAlertStateMachine?) { premiumAlert = restored }

    /// Re-selects at `now`; true when the selection changed. `awaiting`: sources the settle gate still waits for.
    mutating func refresh(
        context: MachineContext, book: QuoteBook, usdKrw: FXRate?, awaiting: Set<String>, into out: inout EngineOutput
    ) -> Bool {
        guard let sources = context.settings.fx.usdtKrw else { return clear() }
        let enabled = sources.exchanges.filter { context.settings.exchanges[$0]?.enabled == true }
        let oldest = context.now.addingTimeInterval(-context.settings.premium.maxQuoteAge.seconds)
        guard !enabled.contains(where: { awaiting.contains($0.rawValue) }) else {
            // Still settling (a reload restarted a source): choose nothing new, but never keep a stale rate
            // (its deadline would fall due again and again).
            guard let selected, selected.at < oldest else { return false }
            out.log(.warning, "USDT/KRW from \(selected.provider) is stale; none until every USDT/KRW exchange has answered")
            self.selected = nil
            return true
        }
        var candidates: [FXRate] = []
        for exchange in enabled {
            guard let quote = book.quote(exchange, USDTKRWSettings.pair), quote.at >= oldest,
                  let price = quote.mid ?? quote.last
            else { continue }
            let rate = FXRate(base: "USDT", quote: "KRW", rate: price, provider: exchange.rawValue, at: quote.at)
            if let usdKrw, abs(price.value / usdKrw.rate.value - 1) > Self.implausibleFraction {
                if implausible.insert(exchange).inserted {
                    out.log(
                        .warning,
                        "\(exchange) data problem: USDT/KRW \(price) is implausible against USD/KRW \(usdKrw.rate) (\(usdKrw.provider)); not used",
                        subject: exchange.rawValue)
                }
                continue
            }
            if implausible.remove(exchange) != nil { out.log(.info, "\(exchange) USDT/KRW \(price) plausible again", subject: exchange.rawValue) }
            candidates.append(rate)
        }
        let selection = guardJump(candidates, context: context, into: &out)
        guard selection != selected else { return false }
        if selection?.provider != selected?.provider {
            if let selection {
                out.log(.info, "USDT/KRW now from \(selection.provider): \(selection.rate) (was \(selected?.provider ?? "none"))", subject: selection.provider)
            } else {
                out.log(.warning, "USDT/KRW: no exchange has a fresh, plausible KRW-USDT quote (was \(selected?.provider ?? "none"))")
            }
        }
        selected = selection
        return true
    }

    /// The first candidate, unless it jumps from the accepted rate without confirmation (then the accepted
    /// rate while fresh).
    private mutating func guardJump(_ candidates: [FXRate], context: MachineContext, into out: inout EngineOutput) -> FXRate? {
        guard let candidate = candidates.first else { return nil }
        let limit = context.settings.fx.maxMovePct / 100
        func close(_ a: FXRate, _ b: FXRate) -> Bool { abs(a.rate.value / b.rate.value - 1) <= limit }
        guard let accepted, !close(candidate, accepted) else { return accept(candidate) }
        if candidates.dropFirst().contains(where: { $0.provider != candidate.provider && close($0, candidate) }) {
            out.log(.warning, "USDT/KRW \(candidate.rate) from \(candidate.provider) confirmed by another exchange after a jump from \(accepted.rate)")
            return accept(candidate)
        }
        if let held, held.provider == candidate.provider, close(candidate, held), let heldSince {
            if candidate.at > held.at, context.now.timeIntervalSince(heldSince) >= FXMachine.jumpHold { return accept(candidate) }
        } else {
            out.log(
                .warning,
                "\(candidate.provider) data problem: USDT/KRW \(candidate.rate) moved \(NumberText.percent(abs(candidate.rate.value / accepted.rate.value - 1) * 100))% "
                    + "from \(accepted.rate); held until another exchange confirms it", subject: candidate.provider)
            held = candidate
            heldSince = context.now
        }
        let oldest = context.now.addingTimeInterval(-context.settings.premium.maxQuoteAge.seconds)
        return accepted.at >= oldest ? accepted : nil
    }

    private mutating func accept(_ rate: FXRate) -> FXRate {
        accepted = rate
        held = nil
        heldSince = nil
        return rate
    }

    private mutating func clear() -> Bool {
        defer { selected = nil }
        return selected != nil
    }

    /// When the selected quote stops being fresh.
    func deadline(maxQuoteAge: Duration) -> Date? {
        selected.map { $0.at.addingTimeInterval(maxQuoteAge.seconds + 0.001) }
    }

    /// A reload with another `fx.usdt_krw`, or another exchange set: start over.
    mutating func forget() {
        selected = nil
        accepted = nil
        held = nil
        heldSince = nil
        implausible = []
    }

    mutating func setPremium(_ pct: Double?) { premiumPct = pct }
}

extension USDTKRWMachine {
    /// The `krw_via: usdt` basis over `official`, cached while neither it nor the selected rate changes.
    mutating func basis(official: CurrencyConverter) -> USDTConversionBasis {
        if let cached = basisCache, cached.from === official.identity, cached.basis.usdtKrw == selected { return cached.basis }
        let basis = USDTConversionBasis(official: official, usdtKrw: selected)
        basisCache = BasisCache(basis: basis, from: official.identity)
        return basis
    }
}

/// The last `USDTConversionBasis` built, and the official converter it was built over.
struct BasisCache: Sendable {
    var basis: USDTConversionBasis
    var from: ConverterIdentity
}
