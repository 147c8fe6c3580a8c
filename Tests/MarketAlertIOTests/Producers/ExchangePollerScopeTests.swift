import Foundation
import MarketAlertCore
@testable import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The REST poller beside a stream, on virtual time: every pair as a snapshot while the stream is not live;
/// while it is, only the pairs the exchange refused on it, merged into the book (`.update`), and nothing at
/// all when it refused none; a failing poll of those is not the exchange's failure (its stream works).
@Suite struct ExchangePollerScopeTests {
    /// A ticker API that answers every pair asked for at a fixed price, or fails, and records what it was asked.
    final class RecordingSource: QuoteSource {
        let exchange = ExchangeID.bybit
        private let state = Mutex<(asked: [Set<MarketPair>], failing: Bool)>(([], false))

        var asked: [Set<MarketPair>] { state.withLock { $0.asked } }
        func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

        func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
            let failing = state.withLock { state in
                state.asked.append(pairs)
                return state.failing
            }
            if failing { throw SourceError(source: "bybit", kind: .http(status: 503), message: "HTTP 503") }
            return pairs.sorted { $0.description < $1.description }.map { pair in
                Quote(exchange: .bybit, market: "\(pair.base)\(pair.quote)", base: pair.base, quote: pair.quote, last: Price("100"), receivedAt: Date())
            }
        }
    }

    static let btc = MarketPair(base: "BTC", quote: "USDT")
    static let eth = MarketPair(base: "ETH", quote: "USDT")

    @Test func aLiveStreamNarrowsPollingToTheMarketsItRefused() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_750_000_000))
        let source = RecordingSource()
        var settings = ExchangeSettings(id: .bybit, baseURL: URL(fileURLWithPath: "/"))
        settings.pollInterval = .seconds(5)
        let poller = ExchangePoller(settings: settings, source: source, pairs: [Self.btc, Self.eth], clock: clock) { 0.5 }
        let coverage = StreamCoverage()
        let inbox = EngineInbox()
        let task = Task { await poller.run(into: inbox) { coverage.pollScope } }
        defer { task.cancel() }

        // Not live: everything, as a snapshot.
        #expect(await Self.nextQuotes(inbox) == Polled(pairs: [Self.btc, Self.eth], delivery: .snapshot))
        // Live, nothing refused: the poller only waits.
        coverage.update { $0.live = true }
        let start = clock.now()
        let polling = ClockLabel.poll("bybit")
        try await clock.waitForSleeper(polling, at: start + 5)
        await clock.advance(by: .seconds(5))
        try await clock.waitForSleeper(polling, at: start + 10)
        await clock.advance(by: .seconds(5))
        try await clock.waitForSleeper(polling, at: start + 15)
        #expect(source.asked.count == 1)
        // ETH refused on the stream: polled alone, merged, every interval.
        coverage.update { $0.restOnly = [Self.eth] }
        await clock.advance(by: .seconds(5))
        #expect(await Self.nextQuotes(inbox) == Polled(pairs: [Self.eth], delivery: .update))
        try await clock.waitForSleeper(polling, at: start + 20)
        await clock.advance(by: .seconds(5))
        #expect(await Self.nextQuotes(inbox) == Polled(pairs: [Self.eth], delivery: .update))
        #expect(source.asked.dropFirst() == [[Self.eth], [Self.eth]])
        // Its poll fails: no event for the engine (the stream carries the exchange); it tries again later.
        source.fail(true)
        let sentBefore = inbox.sent
        try await clock.waitForSleeper(polling, at: start + 25)
        await clock.advance(by: .seconds(5))
        try await clock.waitUntil("\(polling) asleep, backing off after the failed poll at +25 s") { sleeping in
            sleeping.contains { $0.label == polling && $0.deadline > start + 25 }
        }
        #expect(source.asked.count == 4)
        #expect(inbox.sent == sentBefore)
        // The stream goes down: everything again, as a snapshot.
        source.fail(false)
        coverage.update { $0.live = false }
        await clock.advance(by: .seconds(120))
        #expect(await Self.nextQuotes(inbox) == Polled(pairs: [Self.btc, Self.eth], delivery: .snapshot))
        task.cancel()
        await task.value
    }

    struct Polled: Equatable {
        var pairs: Set<MarketPair>
        var delivery: QuoteDelivery
    }

    /// The next input of `inbox`, when it is quotes: their pairs and delivery.
    static func nextQuotes(_ inbox: EngineInbox) async -> Polled? {
        guard case .event(.quotes(_, let quotes, let delivery))? = await inbox.stream.next() else { return nil }
        return Polled(pairs: Set(quotes.map { MarketPair(base: $0.base, quote: $0.quote) }), delivery: delivery)
    }
}
