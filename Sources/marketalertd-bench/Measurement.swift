import Foundation
import MarketAlertCore

/// Wall-clock samples of one operation, in seconds.
struct Samples {
    private(set) var sorted: [Double]

    init(_ values: [Double]) { sorted = values.sorted() }

    var count: Int { sorted.count }
    var min: Double { sorted.first ?? .nan }
    var max: Double { sorted.last ?? .nan }
    var median: Double { percentile(50) }
    var p90: Double { percentile(90) }

    /// Nearest-rank percentile.
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }
}

enum Stopwatch {
    /// Runs `body` `warmup` times untimed, then `iterations` times timed one by one.
    static func measure(warmup: Int, iterations: Int, _ body: () throws -> Void) rethrows -> Samples {
        for _ in 0..<warmup { try body() }
        var values: [Double] = []
        values.reserveCapacity(iterations)
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            let start = clock.now
            try body()
            values.append((clock.now - start).seconds)
        }
        return Samples(values)
    }
}

/// Keeps results alive so the optimizer cannot drop the work that produced them.
enum Sink {
    // nonisolated(unsafe): only the benchmark's one timing thread touches it.
    nonisolated(unsafe) static var checksum = 0

    @inline(never) static func consume(_ value: Int) { checksum &+= value }
}
