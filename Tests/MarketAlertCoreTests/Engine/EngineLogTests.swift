import Foundation
import MarketAlertCore
import Testing

/// One unreachable exchange polled every second must not write a log line per poll: the engine logs the
/// first failure, changes, a summary at most every ten minutes, and the recovery.
@Suite struct EngineLogTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    func logLines(_ actions: [EngineAction], about source: String) -> [String] {
        actions.compactMap { action in
            if case .log(let line) = action, line.subject == source { return line.message }
            return nil
        }
    }

    @Test func sixtySecondsOfFailuresMakeABoundedNumberOfLinesAndOneRecovery() {
        var engine = Kit.engine(Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit])]))
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100000", at: t0)], .snapshot), now: t0)
        var lines: [String] = []
        for second in 0..<60 {
            let now = t0.addingTimeInterval(Double(second))
            lines += logLines(engine.handle(.sourceFailed(source: "binance", message: "timeout after 5s"), now: now), about: "binance")
        }
        // The first failure and the "declared down at its first fetch" line; nothing per poll.
        #expect(lines.count <= 3, "\(lines)")
        #expect(lines.first?.contains("timeout") == true)
        let back = t0.addingTimeInterval(61)
        let recovery = logLines(engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: back)], .snapshot), now: back), about: "binance")
        #expect(recovery.count == 1)
        #expect(recovery.first?.contains("recovered") == true, "\(recovery)")
    }

    @Test func anHourOfFailuresLogsASummaryAtMostEveryTenMinutes() {
        var engine = Kit.engine(Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit])]))
        var lines: [String] = []
        for second in stride(from: 0, to: 3_600, by: 1) {
            let now = t0.addingTimeInterval(Double(second))
            lines += logLines(engine.handle(.sourceFailed(source: "binance", message: "HTTP 503"), now: now), about: "binance")
        }
        #expect(lines.count <= 9, "\(lines.count) lines: \(lines)")
        #expect(lines.contains { $0.contains("still failing") })
    }
}
