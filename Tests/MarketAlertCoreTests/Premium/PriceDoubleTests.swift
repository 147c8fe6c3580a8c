import Foundation
import Testing
@testable import MarketAlertCore

/// `Price(_: Double)` writes the double's shortest text on the stack (`DoubleText`) instead of going through
/// `String(double)` and `Decimal(string:)`: it must give exactly what that path gave, for every kind of double a
/// VWAP or a book's best price can be.
@Suite struct PriceDoubleTests {
    /// The old path, as it was.
    static func throughString(_ double: Double) -> Price? {
        guard double.isFinite, double > 0, let decimal = Decimal(string: String(double)) else { return nil }
        return Price(exact: decimal, value: double)
    }

    static let samples: [Double] = [
        100_000.5, 60_012.4, 0.1, 0.3, 1.0, 100_000.0, 1e-5, 1.4e-7, 2e-12, 9.999e11, 123_456_789.123_456_78,
        163_248_000, 1.0 / 3.0, 2.0 / 3.0 * 1e5, 0.000_012_345_678_901_234_5, 99_999.999_999_999_99, 5e15, 9_007_199_254_740_992 /* 2^53, the last integer a Double holds exactly */,
        // not prices: nil either way
        0, -1, .nan, .infinity, 1e-13, 1e13, .leastNonzeroMagnitude,
    ]

    @Test(arguments: samples)
    func agreesWithTheStringPath(_ double: Double) {
        let fast = Price(double)
        let slow = Self.throughString(double)
        #expect(fast?.exact == slow?.exact, "\(double)")
        #expect(fast?.value == slow?.value, "\(double)")
        #expect(fast?.description == slow?.description, "\(double)")
    }

    @Test func randomVWAPsAgree() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Any 53-bit fraction scaled over the plausible price range, as a VWAP's division gives.
            let double = Double(state >> 11) / Double(1 << 53) * pow(10, Double(Int(state % 22)) - 10)
            let fast = Price(double)
            let slow = Self.throughString(double)
            #expect(fast?.exact == slow?.exact, "\(double)")
            #expect(fast?.description == slow?.description, "\(double)")
            #expect(fast?.value == double || fast == nil)
        }
    }
}
