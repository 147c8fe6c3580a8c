@testable import MarketAlertIO
import Testing

/// The stream's jitter: uniform in 0..<1, reproducible from its seed, different between generators.
@Suite struct StreamJitterTests {
    @Test func valuesAreInRangeAndSpread() {
        let jitter = StreamJitter(seed: 42)
        let values = (0..<10_000).map { _ in jitter.next() }
        #expect(values.allSatisfy { $0 >= 0 && $0 < 1 })
        let mean = values.reduce(0, +) / Double(values.count)
        #expect(abs(mean - 0.5) < 0.02, "mean \(mean)")
        #expect(values.min() ?? 1 < 0.01)
        #expect(values.max() ?? 0 > 0.99)
        // Each tenth of the range gets about a tenth of the values.
        var deciles = [Int](repeating: 0, count: 10)
        for value in values { deciles[Int(value * 10)] += 1 }
        #expect(deciles.allSatisfy { (850...1150).contains($0) }, "\(deciles)")
    }

    @Test func theSeedDecidesTheSequence() {
        let a = StreamJitter(seed: 7), b = StreamJitter(seed: 7), c = StreamJitter(seed: 8)
        let first = (0..<5).map { _ in a.next() }
        #expect(first == (0..<5).map { _ in b.next() })
        #expect(first != (0..<5).map { _ in c.next() })
    }
}
