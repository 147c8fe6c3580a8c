import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon's premium history across a SIGTERM and a restart, and across a SIGHUP that changes
/// `history.resolution`: the slot in progress is neither lost at the stop nor dropped by the reload, so its
/// min and max stay visible in `/api/v1/history`.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct HistoryContinuityIntegrationTests {
    static func config(_ harness: DaemonHarness, resolution: String) -> String {
        harness.standardConfig(extra: """

            http:
              listen: "127.0.0.1:0"
            history:
              resolution: \(resolution)
              retention: 1d
            """)
    }

    /// (min, max) pct of the global BTC samples of the last two hours, as `/api/v1/history` gives them.
    static func extremes(_ api: DaemonAPI) async throws -> (min: Double, max: Double, count: Int)? {
        let since = Timestamp.rfc3339(Date().addingTimeInterval(-7200))
        let answer = try await api.get("/api/v1/history?rule=global&asset=BTC&since=\(since)")
        guard answer.status == 200 else { return nil }
        let samples = answer.json["samples"] as? [[String: Any]] ?? []
        let minima = samples.compactMap { ($0["min_pct"] as? NSNumber)?.doubleValue }
        let maxima = samples.compactMap { ($0["max_pct"] as? NSNumber)?.doubleValue }
        guard let low = minima.min(), let high = maxima.max() else { return nil }
        return (low, high, samples.count)
    }

    @Test func sigtermThenRestartKeepsTheOpenSlotsMinAndMax() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000")
        apis.set("bybit", "BTC", "100300")  // 0.3%
        apis.set("upbit", "BTC", "140000000")
        // One slot per hour: the whole test runs inside the slot in progress (it crosses an hour boundary
        // only by chance, and then still passes on the fixed code).
        try harness.writeConfig(Self.config(harness, resolution: "1h"))

        let first = try harness.start()
        defer { first.terminate() }
        try await first.waitUntilRunning()
        try await first.waitForEvent("the 0.3% firing") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        let api = try await DaemonAPI.connect(to: first)
        #expect(try await Self.extremes(api) == nil, "nothing is written while the slot is open")
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(10)) == 0)

        apis.set("bybit", "BTC", "100010")  // 0.01%
        let second = try harness.start()
        defer { second.terminate() }
        try await second.waitUntilRunning()
        try await second.waitForEvent("the resolve at 0.01%") { $0.key == "premium/global/BTC" && $0.status == "resolved" }
        let secondAPI = try await DaemonAPI.connect(to: second)
        // The stop wrote the slot in progress: its 0.3% is there while the slot is still open.
        let written = try #require(try await Self.extremes(secondAPI), "the slot in progress was lost at the stop")
        #expect(abs(written.max - 0.3) < 1e-6)
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(10)) == 0)

        // A third run reads what the two wrote: the one slot spans both runs.
        let third = try harness.start()
        defer { third.terminate() }
        try await third.waitUntilRunning()
        let thirdAPI = try await DaemonAPI.connect(to: third)
        let merged = try #require(try await Self.extremes(thirdAPI))
        #expect(abs(merged.max - 0.3) < 1e-6, "max \(merged.max)")
        #expect(abs(merged.min - 0.01) < 1e-6, "min \(merged.min)")
        third.signal(SIGTERM)
        #expect(await third.waitForExit(timeout: .seconds(10)) == 0)
    }

    @Test func aReloadChangingTheResolutionKeepsTheSlotInProgressVisible() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000")
        apis.set("bybit", "BTC", "100300")  // 0.3%
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(Self.config(harness, resolution: "1h"))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        try await daemon.waitForEvent("the 0.3% firing") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        apis.set("bybit", "BTC", "100010")  // 0.01%: from here on every new slot sees only this
        try await daemon.waitForEvent("the resolve at 0.01%") { $0.key == "premium/global/BTC" && $0.status == "resolved" }
        let api = try await DaemonAPI.connect(to: daemon)
        #expect(try await Self.extremes(api) == nil)

        try harness.writeConfig(Self.config(harness, resolution: "1m"))
        daemon.signal(SIGHUP)
        try await daemon.waitForLine("the reload", stderr: true) { $0.contains("configuration reloaded") }
        // The hour in progress (0.3% at its max) is published at the reload, not dropped: the new one-minute
        // slots never saw 0.3%.
        try await daemon.waitUntil("the hour's slot in /api/v1/history", timeout: .seconds(10)) {
            try await Self.extremes(api).map { abs($0.max - 0.3) < 1e-6 } ?? false
        }
        #expect(try await Self.extremes(api).map { abs($0.min - 0.01) < 1e-6 } == true)
        #expect(try await api.get("/healthz").status == 200)
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
    }
}
