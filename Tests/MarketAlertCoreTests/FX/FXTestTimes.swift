import Foundation
@testable import MarketAlertCore

/// Instants used by the FX tests, written as wall-clock times in a named zone (the tests read like the
/// situations they describe: "Saturday 14:00 KST").
enum FXTestTimes {
    static func kst(_ date: String, _ time: String) -> Date { at(date, time, "Asia/Seoul") }
    static func utc(_ date: String, _ time: String) -> Date { at(date, time, "UTC") }
    static func berlin(_ date: String, _ time: String) -> Date { at(date, time, "Europe/Berlin") }

    private static func at(_ date: String, _ time: String, _ zone: String) -> Date {
        guard let instant = FXQuoteTime.local(date: date, time: time, zoneID: zone) else {
            fatalError("test time \(date) \(time) \(zone) does not exist")  // test constants only
        }
        return instant
    }

    static func rate(_ provider: FXProviderKind, _ value: String, quote: String = "KRW", at: Date, change: Double? = nil) -> FXRate {
        guard let price = Price(value) else { fatalError("bad test price \(value)") }  // test constants only
        return FXRate(base: "USD", quote: quote, rate: price, provider: provider.rawValue, at: at, changePct: change)
    }
}
