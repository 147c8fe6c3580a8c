import Foundation
import Testing
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// The three FX sources over real HTTP against `MockHTTPServer`, fed the recorded fixtures (values checked
/// against their `*.expected.json`) and hand-made error bodies (labelled as such).
@Suite("FX rate sources")
struct RateSourceTests {
    struct DunamuExpected: Decodable {
        struct Row: Decodable {
            var code: String
            var basePrice: Decimal
            var date: String
            var time: String
            var timestamp: Double
        }
        var rows: [Row]
    }

    struct OXRExpected: Decodable {
        var timestamp: Double
        var KRW: Decimal
        var TWD: Decimal
    }

    struct FrankfurterExpected: Decodable {
        var date: String
        var KRW: Decimal
    }

    // MARK: Dunamu

    @Test("Dunamu fixture: USD/KRW, KST quote time, change in percent")
    func dunamuFixture() async throws {
        let expected = try JSONDecoder().decode(DunamuExpected.self, from: Fixtures.data("dunamu/forex-recent-KRWUSD-20210813.expected.json"))
        let row = try #require(expected.rows.first)
        let rates = try await FXTest.withServer { server, fetcher in
            server.route("/v1/forex/recent", response: .data(try Fixtures.data("dunamu/forex-recent-KRWUSD-20210813.json")))
            let rates = try await DunamuRateSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher)
                .fetchUSDRates(for: ["KRW"])
            #expect(server.requests.map(\.query) == ["codes=FRX.KRWUSD"])
            return rates
        }
        let rate = try #require(rates.first)
        #expect(rates.count == 1)
        #expect(row.code == "FRX.KRWUSD")
        #expect(rate.pair == "USD/KRW")
        #expect(rate.provider == "dunamu")
        #expect(rate.rate.exact == row.basePrice)
        #expect(rate.rate.exact == Decimal(string: "1169"))
        // date/time are KST: 2021-08-13 20:01:49 KST = 11:01:49Z, a second before the storage timestamp.
        #expect(rate.at == FXTest.instant(row.date, row.time, "Asia/Seoul"))
        #expect(Timestamp.rfc3339(rate.at) == "2021-08-13T11:01:49Z")
        #expect(abs(rate.at.timeIntervalSince1970 * 1000 - row.timestamp) < 2000)
        let change = try #require(rate.changePct)
        #expect(abs(change - 0.47271165) < 1e-12)
    }

    @Test("Dunamu: other currencies are not provided (no request)")
    func dunamuOnlyKRW() async throws {
        try await FXTest.withServer { server, fetcher in
            let rates = try await DunamuRateSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher).fetchUSDRates(for: ["JPY"])
            #expect(rates.isEmpty)
            #expect(server.requests.isEmpty)
        }
    }

    @Test("Dunamu hand-made bodies: [] is .empty, {status,error,message} is .api, bad values are .decode", arguments: [
        ("[]", "empty"),
        (#"{"status":400,"error":"Bad Request","message":"codes is required"}"#, "api"),
        (#"[{"code":"FRX.KRWJPY","basePrice":900.1,"date":"2026-03-10","time":"11:00:00"}]"#, "empty"),
        (#"[{"code":"FRX.KRWUSD","basePrice":0,"date":"2026-03-10","time":"11:00:00"}]"#, "decode"),
        (#"[{"code":"FRX.KRWUSD","basePrice":-1395.5,"date":"2026-03-10","time":"11:00:00"}]"#, "decode"),
        (#"[{"code":"FRX.KRWUSD","basePrice":null,"date":"2026-03-10","time":"11:00:00"}]"#, "decode"),
        (#"[{"code":"FRX.KRWUSD","basePrice":"1395.5","date":"2026-03-10","time":"11:00:00"}]"#, "decode"),
        (#"[{"code":"FRX.KRWUSD","basePrice":1395.5,"date":"2026-02-30","time":"11:00:00"}]"#, "decode"),
        (#"[{"code":"FRX.KRWUSD","basePrice":1395.5}]"#, "decode"),
        (#"[{"code":"FRX.KRWUSD","basePrice":1395.5,"date":"2026-03"#, "decode"),
        ("<html><body>502 Bad Gateway</body></html>", "decode"),
        (#"{"unexpected":true}"#, "decode"),
    ])
    func dunamuBadBodies(body: String, kind: String) async throws {
        let error = await #expect(throws: SourceError.self) {
            try await FXTest.withServer { server, fetcher in
                server.route("/v1/forex/recent", response: .json(body))
                _ = try await DunamuRateSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher).fetchUSDRates(for: ["KRW"])
            }
        }
        #expect(error?.source == "dunamu")
        switch (kind, error?.kind) {
        case ("empty", .empty?), ("api", .api?), ("decode", .decode?): break
        default: Issue.record("expected \(kind), got \(String(describing: error))")
        }
        if kind == "api" { #expect(error?.message.contains("codes is required") == true) }
    }

    @Test("Dunamu hand-made error object with HTTP 400 is an HTTP error; its message stays upstream, out of events")
    func dunamuHTTPError() async throws {
        let error = await #expect(throws: SourceError.self) {
            try await FXTest.withServer { server, fetcher in
                server.route("/v1/forex/recent", response: .json(#"{"status":400,"error":"Bad Request","message":"codes is required"}"#, status: 400))
                _ = try await DunamuRateSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher).fetchUSDRates(for: ["KRW"])
            }
        }
        #expect(error?.kind == .http(status: 400))
        #expect(error?.message == "HTTP 400 Bad Request")
        #expect(error?.upstream?.contains("codes is required") == true)
    }

    @Test("Dunamu: a change rate that contradicts the change price is dropped, the rate kept")
    func dunamuInconsistentChange() throws {
        let consistent = try DunamuRateSource.parse(Data(FXTest.dunamuBody(
            date: "2026-03-10", time: "11:00:00", price: "1395.50", changeRate: "0.0062", changePrice: "8.60").utf8))
        #expect(consistent.changePct.map { abs($0 - 0.62) < 1e-12 } == true)
        let contradicting = try DunamuRateSource.parse(Data(FXTest.dunamuBody(
            date: "2026-03-10", time: "11:00:00", price: "1395.50", changeRate: "0.62", changePrice: "8.60").utf8))
        #expect(contradicting.changePct == nil)
        #expect(contradicting.rate == Price("1395.50"))
    }

    // MARK: OpenExchangeRates

    @Test("OpenExchangeRates fixture: seconds timestamp, exact rates, app id only in the Authorization header")
    func oxrFixture() async throws {
        let expected = try JSONDecoder().decode(OXRExpected.self, from: Fixtures.data("openexchangerates/latest-USD-20180329.expected.json"))
        let appID = "0123456789abcdef0123456789abcdef"
        let rates = try await FXTest.withServer { server, fetcher in
            server.route("/api/latest.json", response: .data(try Fixtures.data("openexchangerates/latest-USD-20180329.json")))
            let rates = try await OpenExchangeRatesSource(baseURL: server.baseURL, appID: appID, timeout: .seconds(5), fetcher: fetcher)
                .fetchUSDRates(for: ["KRW", "TWD", "USD"])
            let request = try #require(server.requests.first)
            #expect(request.header("Authorization") == "Token \(appID)")
            #expect(request.query == "symbols=KRW,TWD")
            #expect(request.query?.contains(appID) == false)
            return rates
        }
        let byQuote = Dictionary(uniqueKeysWithValues: rates.map { ($0.quote, $0) })
        #expect(Set(byQuote.keys) == ["KRW", "TWD"])
        #expect(byQuote["KRW"]?.rate.exact == expected.KRW)
        #expect(byQuote["KRW"]?.rate.exact == Decimal(string: "1062.025"))
        #expect(byQuote["TWD"]?.rate.exact == expected.TWD)
        #expect(byQuote["KRW"]?.at == Date(timeIntervalSince1970: expected.timestamp))
        #expect(byQuote["KRW"].map { Timestamp.rfc3339($0.at) } == "2018-03-29T16:00:00Z")
        #expect(byQuote["KRW"]?.provider == "openexchangerates")
        #expect(byQuote["KRW"]?.changePct == nil)
    }

    @Test("OpenExchangeRates: the app id never appears in an error, even echoed by the server or cut off in a snippet",
          arguments: ["", "Invalid App ID provided - "])
    func oxrRedaction(padding: String) async throws {
        let appID = "feedfacefeedfacefeedfacefeedface"
        let source = { (server: MockHTTPServer, fetcher: HTTPFetcher) in
            OpenExchangeRatesSource(baseURL: server.baseURL, appID: appID, timeout: .seconds(5), fetcher: fetcher)
        }
        let error = await #expect(throws: SourceError.self) {
            try await FXTest.withServer { server, fetcher in
                server.route("/api/latest.json") { request in
                    .json(#"{"error":true,"status":401,"message":"invalid_app_id","description":"\#(padding)\#(request.header("Authorization") ?? "")"}"#, status: 401)
                }
                _ = try await source(server, fetcher).fetchUSDRates(for: ["KRW"])
            }
        }
        let message = try #require(error?.message)
        let upstream = try #require(error?.upstream)
        #expect(error?.kind == .http(status: 401))
        // Events carry the status only; the body stays in `upstream`, scrubbed.
        #expect(message == "HTTP 401 Unauthorized")
        #expect(upstream.contains("invalid_app_id"))
        #expect(upstream.contains("<redacted>"))
        // Not even a piece of it: no 6 consecutive characters of the app id.
        let pieces = (0...(appID.count - 6)).map { String(Array(appID)[$0..<($0 + 6)]) }
        #expect(pieces.allSatisfy { !message.contains($0) && !upstream.contains($0) }, "\(message) \(upstream)")
        try await FXTest.withServer { server, fetcher in
            let built = source(server, fetcher)
            #expect(!"\(built)".contains(appID))
            var dumped = ""
            dump(built, to: &dumped)
            #expect(!dumped.contains(appID))
        }
    }

    @Test("OpenExchangeRates: 429 carries Retry-After; a zero rate is a decode error naming the key")
    func oxrErrors() async throws {
        let limited = await #expect(throws: SourceError.self) {
            try await FXTest.withServer { server, fetcher in
                server.route("/api/latest.json", response: MockHTTPServer.Response(
                    status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "1800")],
                    body: Data(#"{"error":true,"status":429,"message":"too_many_requests"}"#.utf8)))
                _ = try await OpenExchangeRatesSource(baseURL: server.baseURL, appID: "abc", timeout: .seconds(5), fetcher: fetcher)
                    .fetchUSDRates(for: ["KRW"])
            }
        }
        #expect(limited?.retryAfter == .seconds(1800))
        let zero = #expect(throws: SourceError.self) {
            try OpenExchangeRatesSource.parse(Data(FXTest.oxrBody(timestamp: 1_772_859_600, rates: ["KRW": "0"]).utf8), currencies: ["KRW"])
        }
        #expect(zero?.kind == .decode)
        #expect(zero?.message.contains("rates.KRW") == true)
        let missing = #expect(throws: SourceError.self) {
            try OpenExchangeRatesSource.parse(Data(FXTest.oxrBody(timestamp: 1_772_859_600, rates: ["JPY": "150"]).utf8), currencies: ["KRW"])
        }
        #expect(missing?.kind == .empty)
    }

    // MARK: Frankfurter

    @Test("Frankfurter fixture: ECB date at 14:15 CET, only needed ECB symbols asked for")
    func frankfurterFixture() async throws {
        let expected = try JSONDecoder().decode(FrankfurterExpected.self, from: Fixtures.data("frankfurter/v1-latest-base-USD-20250411.expected.json"))
        let rates = try await FXTest.withServer { server, fetcher in
            server.route("/latest", response: .data(try Fixtures.data("frankfurter/v1-latest-base-USD-20250411.json")))
            let rates = try await FrankfurterRateSource(baseURL: server.baseURL, timeout: .seconds(5), fetcher: fetcher)
                .fetchUSDRates(for: ["KRW", "TWD"])
            #expect(server.requests.map(\.path) == ["/latest"])
            #expect(server.requests.map(\.query) == ["base=USD&symbols=KRW"])
            return rates
        }
        let rate = try #require(rates.first)
        #expect(rates.count == 1)
        #expect(rate.pair == "USD/KRW")
        #expect(rate.rate.exact == expected.KRW)
        #expect(rate.rate.exact == Decimal(string: "1431.68"))
        #expect(expected.date == "2025-04-11")
        #expect(Timestamp.rfc3339(rate.at) == "2025-04-11T12:15:00Z")
        #expect(rate.provider == "frankfurter")
    }

    @Test("Frankfurter paths per base_url", arguments: [
        ("https://api.frankfurter.app", "/latest"),
        ("https://api.frankfurter.dev", "/v1/latest"),
        ("https://api.frankfurter.dev/", "/v1/latest"),
        ("https://api.frankfurter.dev/v1", "/latest"),
    ])
    func frankfurterPaths(base: String, path: String) async throws {
        let url = try #require(URL(string: base))
        try await FXTest.withServer { _, fetcher in
            #expect(FrankfurterRateSource(baseURL: url, timeout: .seconds(5), fetcher: fetcher).latestPath == path)
        }
    }

    @Test("Frankfurter: a base_url with a path keeps it")
    func frankfurterBasePath() async throws {
        try await FXTest.withServer { server, fetcher in
            server.route("/v1/latest", response: .json(FXTest.frankfurterBody(date: "2026-03-06", rates: ["KRW": "1448.1"])))
            let base = server.baseURL.appendingPathComponent("v1")
            let rates = try await FrankfurterRateSource(baseURL: base, timeout: .seconds(5), fetcher: fetcher).fetchUSDRates(for: ["KRW"])
            #expect(rates.first?.rate == Price("1448.1"))
            #expect(server.requests.map(\.path) == ["/v1/latest"])
        }
    }

    @Test("Frankfurter hand-made bodies: wrong base, bad date, missing currency")
    func frankfurterBadBodies() {
        let wrongBase = #expect(throws: SourceError.self) {
            try FrankfurterRateSource.parse(Data(#"{"amount":1.0,"base":"EUR","date":"2026-03-06","rates":{"KRW":1560}}"#.utf8), currencies: ["KRW"])
        }
        #expect(wrongBase?.kind == .decode)
        let badDate = #expect(throws: SourceError.self) {
            try FrankfurterRateSource.parse(Data(FXTest.frankfurterBody(date: "06.03.2026", rates: ["KRW": "1448"]).utf8), currencies: ["KRW"])
        }
        #expect(badDate?.message.contains("date") == true)
        let missing = #expect(throws: SourceError.self) {
            try FrankfurterRateSource.parse(Data(FXTest.frankfurterBody(date: "2026-03-06", rates: ["JPY": "147"]).utf8), currencies: ["KRW"])
        }
        #expect(missing?.kind == .empty)
    }

    // MARK: Factory

    @Test("Factory: OpenExchangeRates without its secret is unavailable, and the warning names the secret only")
    func factory() async throws {
        var fx = FXSettings()
        fx.providers = [
            FXProviderSettings(kind: .dunamu, baseURL: Settings.defaultBaseURL(.dunamu)),
            FXProviderSettings(kind: .openexchangerates, baseURL: Settings.defaultBaseURL(.openexchangerates), appIDEnv: "OXR_APP_ID"),
            FXProviderSettings(kind: .frankfurter, baseURL: Settings.defaultBaseURL(.frankfurter)),
        ]
        try await FXTest.withServer { _, fetcher in
            let without = RateSources.makeAll(fx, fetcher: fetcher, secrets: SecretResolver(environment: [:]))
            #expect(without.sources.map(\.provider) == [.dunamu, .frankfurter])
            #expect(without.issues.count == 1)
            #expect(without.issues.first?.path == "fx.providers[1].app_id_env")
            #expect(without.issues.first?.severity == .warning)
            #expect(without.issues.first?.message.contains("OXR_APP_ID") == true)

            let secret = "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e"
            let with = RateSources.makeAll(fx, fetcher: fetcher, secrets: SecretResolver(environment: ["OXR_APP_ID": "\(secret)\n"]))
            #expect(with.sources.map(\.provider) == [.dunamu, .openexchangerates, .frankfurter])
            #expect(with.issues.isEmpty)
            #expect(!with.sources.map { "\($0)" }.joined().contains(secret))
        }
    }
}
