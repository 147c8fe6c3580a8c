import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The daemon's HTTP fetcher on a real server on 127.0.0.1: a body arrives byte for byte whether its length
/// is announced or it comes in chunks, a body over the cap is refused either way (a clear error naming the
/// source, not a process that grows), and a cancelled poll ends at once.
@Suite("HTTP answers: whole bodies, the size cap, cancellation", .timeLimit(.minutes(1)))
struct ResponseBodyCapTests {
    /// Half a megabyte, not a repeating pattern: a misplaced or lost part would show.
    static let body: Data = {
        var random = SeededRandom(state: 42)
        return Data((0..<600_000).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }()

    @Test func anAnnouncedBodyArrivesWhole() async throws {
        try await withExchangeServer { server, fetcher in
            server.route("/list", response: .data(Self.body))
            let answer = try await fetcher.get(server.baseURL.appendingPathComponent("list"), source: "binance", timeout: .seconds(10))
            #expect(answer.status == 200)
            #expect(answer.body == Self.body)
        }
    }

    @Test func aChunkedBodyArrivesWhole() async throws {
        try await withExchangeServer { server, fetcher in
            server.route("/list", response: .chunked(Self.body, size: 7_000))
            let answer = try await fetcher.get(server.baseURL.appendingPathComponent("list"), source: "binance", timeout: .seconds(10))
            #expect(answer.headers.first(name: "Content-Length") == nil)
            #expect(answer.body == Self.body)
        }
    }

    @Test(arguments: [false, true])
    func aBodyOverTheCapIsRefused(chunked: Bool) async throws {
        try await withExchangeServer(maxBodyBytes: 100_000) { server, fetcher in
            server.route("/list", response: chunked ? .chunked(Self.body, size: 7_000) : .data(Self.body))
            server.route("/small", response: .data(Self.body.prefix(100_000)))
            let error = await sourceError { () async throws(SourceError) in
                _ = try await fetcher.get(server.baseURL.appendingPathComponent("list"), source: "okx", timeout: .seconds(10))
            }
            #expect(error?.source == "okx")
            #expect(error?.kind == .decode)
            #expect(error?.message == "response body too large")
            // A body of exactly the cap is taken.
            let answer = try await fetcher.get(server.baseURL.appendingPathComponent("small"), source: "okx", timeout: .seconds(10))
            #expect(answer.body == Self.body.prefix(100_000))
        }
    }

    @Test func aCancelledRequestEndsAtOnce() async throws {
        try await withExchangeServer { server, fetcher in
            server.route("/slow", response: MockHTTPServer.Response(body: Data("{}".utf8), delay: .seconds(60)))
            let task = Task { () async -> SourceError? in
                await sourceError { () async throws(SourceError) in
                    _ = try await fetcher.get(server.baseURL.appendingPathComponent("slow"), source: "kraken", timeout: .seconds(60))
                }
            }
            try await pollUntil("the request reached the server", timeout: .seconds(20)) { !server.requests.isEmpty }
            let started = ContinuousClock.now
            task.cancel()
            let error = await task.value
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(error?.source == "kraken")
            #expect(error?.kind == .connection)
            #expect(error?.message == "cancelled")
        }
    }
}
