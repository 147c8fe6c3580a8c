import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue #26, items 6–10 and the HTTP parts of 13, through the built daemon on 127.0.0.1: a page from another
/// site cannot silence alerts, hostile text never runs on the status page, history answers are paged and a
/// corrupt row kills nothing, and connections that never finish a request cannot take `/healthz` down.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built binary"))
struct APIHardeningIntegrationTests {
    static let http = """
        http:
          listen: "127.0.0.1:0"
        """

    static func port(_ api: DaemonAPI) throws -> Int {
        guard let port = api.base.split(separator: ":").last.flatMap({ Int($0) }) else { throw RawHTTP.Failed(description: "no port in \(api.base)") }
        return port
    }

    // MARK: 6: cross-site requests, foreign hosts, HEAD

    @Test func aCrossSiteRequestCannotSilenceAndAForeignHostIsRefused() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(harness.standardConfig(extra: Self.http))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)
        let port = try Self.port(api)
        let host = "127.0.0.1:\(port)"
        let body = #"{"matchers":{"key":"*"},"duration":"365d","comment":"from a web page"}"#

        func post(_ headers: [String]) throws -> RawHTTP.Answer {
            try RawHTTP.exchange(port: port, "POST /api/v1/silences HTTP/1.1\r\n" + headers.map { $0 + "\r\n" }.joined()
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
        }
        // A browser's "simple" requests: no preflight, so the server itself must refuse them.
        #expect(try post(["Host: \(host)", "Content-Type: text/plain;charset=UTF-8", "Origin: http://evil.example"]).status == 403)
        #expect(try post(["Host: \(host)", "Content-Type: text/plain"]).status == 415)
        #expect(try post(["Host: \(host)", "Content-Type: application/x-www-form-urlencoded"]).status == 415)
        #expect(try post(["Host: \(host)", "Content-Type: application/json", "Origin: null"]).status == 403)
        #expect(try post(["Host: \(host)", "Content-Type: application/json", "Origin: http://evil.example"]).status == 403)
        #expect(try post(["Host: \(host)", "Content-Type: application/json", "Sec-Fetch-Site: cross-site"]).status == 403)
        // DNS rebinding: the attacker's name pointed at 127.0.0.1.
        #expect(try post(["Host: evil.example:\(port)", "Content-Type: application/json"]).status == 421)
        for path in ["/", "/healthz", "/api/v1/status", "/api/v1/silences", "/metrics"] {
            let answer = try RawHTTP.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
            #expect(answer.status == 421, "\(path): \(answer.head)")
        }
        #expect((try await api.get("/api/v1/silences").json["silences"] as? [Any])?.isEmpty == true, "a refused request made a silence")

        // The CLI's and a same-origin request go through; every answer says what may load and not to sniff.
        let created = try post(["Host: \(host)", "Content-Type: application/json", "Origin: http://\(host)", "Sec-Fetch-Site: same-origin"])
        #expect(created.status == 201, "\(created.head)")
        for path in ["/", "/healthz", "/api/v1/status", "/nope"] {
            let answer = try RawHTTP.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            #expect(answer.header("content-security-policy") == "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'", "\(path)")
            #expect(answer.header("x-content-type-options") == "nosniff", "\(path)")
            #expect(answer.header("access-control-allow-origin") == nil)
        }
        // HEAD answers as GET does, without a body.
        for path in ["/healthz", "/api/v1/status", "/", "/metrics"] {
            let head = try RawHTTP.exchange(port: port, "HEAD \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            #expect(head.status == 200, "\(path): \(head.head)")
            #expect(head.body.isEmpty, "\(path)")
        }

        // A page on another site, in Chromium, tries the simple requests of the attack.
        if Chromium.available {
            let attack = """
                <!doctype html><html><body><script>
                var body = JSON.stringify({matchers: {key: "*"}, duration: "365d", comment: "pwned"});
                fetch("http://\(host)/api/v1/silences", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: body});
                fetch("http://\(host)/api/v1/silences", {method: "POST", mode: "no-cors", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: body});
                fetch("http://\(host)/api/v1/silences", {method: "POST", headers: {"Content-Type": "application/json"}, body: body}).catch(function () {});
                </script></body></html>
                """
            apis.server.route("/attack", response: .init(headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(attack.utf8)))
            let page = apis.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/attack"
            _ = try await Chromium.dumpDOM(page, width: 800, height: 600)
            let silences = try await api.get("/api/v1/silences").json["silences"] as? [[String: Any]] ?? []
            #expect(silences.map { $0["comment"] as? String } == ["from a web page"], "the page made a silence: \(silences)")
        }
        await api.shutdown()
    }

    /// 13: guessing the token is throttled (it answered ~3,000 tries a second), and a short token is warned about.
    @Test func wrongTokensAreThrottledAndAShortTokenIsWarnedAbout() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(harness.standardConfig(extra: Self.http + "\n  token_env: MARKETALERTD_API_TOKEN"))
        let daemon = try harness.start(environment: ["MARKETALERTD_API_TOKEN": "short"])
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        _ = try await daemon.waitForLine("the short-token warning", stderr: true) { $0.contains("at least 8") }
        let api = try await DaemonAPI.connect(to: daemon)
        let body = #"{"matchers":{"key":"*"},"duration":"1h","comment":"c"}"#
        var statuses: [Int] = []
        for i in 0..<30 { statuses.append(try await api.request(.POST, "/api/v1/silences", json: body, token: "guess\(i)").status) }
        #expect(statuses.filter { $0 == 401 }.count <= 6, "\(statuses)")
        #expect(statuses.suffix(20).allSatisfy { $0 == 429 }, "\(statuses)")
        try await Task.sleep(for: .seconds(2))
        #expect(try await api.request(.POST, "/api/v1/silences", json: body, token: "short").status == 201)
        await api.shutdown()
    }

    // MARK: 7: hostile text on the status page

    @Test(.enabled(if: Chromium.available, "needs chromium"))
    func hostileTextFromASilenceAnExchangeAndTWSENeverRunsOnThePage() async throws {
        // Prepend and Extend scalars around the markup, so a `Character` comparison misses `<`, `>` and `"`.
        let payload = "\u{600}<img src=x onerror=document.body.dataset.xss=1 title=\"\u{301}>\u{301}"
        let now = Date()
        var form = try TWSEPublicFormPayload()
        try form.openWindow(code: "4169", start: now, days: 2)
        let hostileName = String(decoding: try JSONEncoder().encode(payload + "TWSEMARK"), as: UTF8.self)
        let twse = String(decoding: try form.body(), as: UTF8.self).replacingOccurrences(of: "\"泰宗\"", with: hostileName)
        let apis = try await MockMarketAPIs()
        apis.server.route(TWSEPublicFormPayload.path, response: .data(Data(twse.utf8)))
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        let binanceError = String(decoding: try JSONEncoder().encode(["code": "-1100", "msg": payload + "BINANCEMARK"]), as: UTF8.self)
            .replacingOccurrences(of: "\"-1100\"", with: "-1100")
        apis.override("binance", with: MockHTTPServer.Response(status: 400, body: Data(binanceError.utf8)))
        // A silence stored before its comment was validated (the API now refuses format characters).
        do {
            let store = try SQLiteStore(directory: harness.stateDirectory)
            try await store.insertSilence(Silence(
                id: "hostile", matchers: SilenceMatchers(key: "premium/kimchi/*"), startsAt: now, endsAt: now + 3600,
                comment: payload + "SILENCEMARK", createdBy: payload + "by", createdAt: now))
        }
        try harness.writeConfig(harness.standardConfig(extra: Self.http + """

            ipo:
              sources:
                - { name: twse, base_url: "\(apis.baseURL)", poll_interval: 250ms, timeout: 2s, time_zone: Asia/Taipei }
              notify: [opens, last_day]
            """))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)
        try await daemon.waitUntil("the exchange's error and the TWSE name") {
            let status = try await api.get("/api/v1/status").json
            let binance = (status["sources"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "binance" }
            let ipo = (status["ipo"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            return binance?["last_error"] as? String != nil && ipo.contains { $0.hasSuffix("TWSEMARK") }
        }
        let html = try await api.get("/").text
        #expect(html.contains("SILENCEMARK") && html.contains("TWSEMARK") && html.contains("onerror=document.body.dataset.xss=1"), "the hostile texts are on the page, as text")
        let dom = try await Chromium.dumpDOM(api.base + "/", width: 1280, height: 800)
        #expect(!dom.contains("<img"), "an element was injected: \(dom.components(separatedBy: "<img").dropFirst().first?.prefix(200) ?? "")")
        #expect(!dom.contains("data-xss"), "a script ran")
        #expect(dom.contains("SILENCEMARK") && dom.contains("TWSEMARK"))
        await api.shutdown()
    }

    // MARK: 8, 9: paged history, corrupt rows

    @Test func historyIsPagedAndACorruptRowKillsNeitherTheDaemonNorTheCLI() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        let now = Date()
        let start = (now - 30_000).timeIntervalSince1970.rounded(.down)
        let count = 25_000
        do {
            let store = try SQLiteStore(directory: harness.stateDirectory)
            var publication = Publication()
            publication.history = (0..<count).map {
                HistorySample(rule: "global", asset: "BTC", at: Date(timeIntervalSince1970: start + Double($0)), minPct: 0.01, maxPct: 0.02, lastPct: 0.015, notifications: 0)
            }
            try await store.commit(publication, at: now)
        }
        // One row corrupted by hand, as a damaged disk or a careless `sqlite3` would.
        let corrupted = try await CommandRunner.run(
            ["/usr/bin/env", "sqlite3", harness.stateDirectory + "/state.sqlite", "UPDATE premium_history SET min_pct = 'abc' WHERE at = \(Int(start) + 5)"],
            timeoutSeconds: 30)
        try #require(corrupted.succeeded, "sqlite3: \(corrupted)")
        try harness.writeConfig(harness.standardConfig(extra: Self.http + """

            history:
              resolution: 1s
              retention: 1d
            """))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)
        let since = Timestamp.rfc3339(Date(timeIntervalSince1970: start))
        let until = Timestamp.rfc3339(Date(timeIntervalSince1970: start + Double(count)))
        var path: String? = "/api/v1/history?rule=global&asset=BTC&since=\(since)&until=\(until)"
        var seen: [String] = []
        var pages = 0
        while let next = path, pages < 10 {
            let answer = try await api.get(next)
            try #require(answer.status == 200, "\(next): \(answer.status) \(answer.text.prefix(300))")
            let samples = answer.json["samples"] as? [[String: Any]] ?? []
            #expect(samples.count <= 10_000)
            seen += samples.compactMap { $0["at"] as? String }
            path = answer.json["next"] as? String
            pages += 1
        }
        #expect(pages == 3, "25,000 samples in pages of at most 10,000")
        #expect(seen.count == count - 1, "every sample once, the corrupt one skipped")
        #expect(Set(seen).count == seen.count)
        #expect(try await api.get("/api/v1/history?rule=global&asset=BTC&since=2026-02-30T00:00:00Z").status == 400)
        #expect(try await api.get("/healthz").status == 200, "the daemon survived the corrupt row")
        #expect(try await api.get("/").status == 200)

        let plot = harness.directory.appendingPathComponent("chart.svg").path
        let cli = try await CommandRunner.run(
            [DaemonProcess.binary.path, "history", "--config", harness.configPath, "--rule", "global", "--asset", "BTC", "--since", "1d", "--plot", plot],
            timeoutSeconds: 60)
        #expect(cli.succeeded, "\(cli)")
        #expect(cli.stdout.contains("1 stored row(s) could not be read"), "\(cli.stdout.suffix(300))")
        #expect(!cli.stdout.contains("warning"), "log lines go to stderr, not into the report")
        #expect(FileManager.default.fileExists(atPath: plot))
        #expect(try await api.get("/healthz").status == 200)
        await api.shutdown()
    }

    // MARK: 10: connections that never finish a request

    @Test(.timeLimit(.minutes(2)))
    func slowAndIdleConnectionsCannotTakeHealthzDown() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(harness.standardConfig(extra: Self.http))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)
        let port = try Self.port(api)

        // 130 slow-header connections, then 400 idle ones.
        var slow: [Int32] = []
        var idle: [Int32] = []
        defer { for fd in slow + idle { close(fd) } }
        for _ in 0..<130 {
            let fd = try RawHTTP.connect(port: port)
            _ = RawHTTP.send(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(fd)
        }
        for _ in 0..<400 { idle.append(try RawHTTP.connect(port: port)) }
        let started = ContinuousClock.now
        // A monitor asks now and again while the slow ones trickle a byte a second: it is answered at once every time.
        for round in 0..<12 {
            for fd in slow { _ = RawHTTP.send(fd, "a") }
            let asked = ContinuousClock.now
            let health = try RawHTTP.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout: 3)
            #expect(health.status == 200, "round \(round): \(health.head)")
            #expect(ContinuousClock.now - asked < .seconds(3))
            try await Task.sleep(for: .seconds(1))
        }
        // CONNECT and a method nobody knows are answered at once, not left hanging.
        for request in ["CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n", "BREW /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"] {
            let asked = ContinuousClock.now
            let answer = try RawHTTP.exchange(port: port, request, timeout: 3)
            #expect((400..<500).contains(answer.status), "\(request.prefix(10)): \(answer.head)")
            #expect(ContinuousClock.now - asked < .seconds(3))
        }
        // By now (over 12 s) every slow connection has been closed by the server (its request deadline is 10 s).
        #expect(ContinuousClock.now - started >= .seconds(11))
        let closed = slow.filter { RawHTTP.isClosed($0, waiting: 0.2) }.count
        #expect(closed == slow.count, "\(closed) of \(slow.count) slow connections closed")
        await api.shutdown()
    }
}

/// HTTP/1.1 over a plain socket to 127.0.0.1, for requests no client library sends (any Host, CONNECT, half a head).
enum RawHTTP {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    struct Answer {
        var head: String
        var body: Data
        var status: Int {
            head.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        }
        func header(_ name: String) -> String? {
            for line in head.components(separatedBy: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                if line[..<colon].lowercased() == name.lowercased() { return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
            }
            return nil
        }
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failed(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw Failed(description: "connect: errno \(errno)")
        }
        return fd
    }

    @discardableResult
    static func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads until the peer closes, `limit` bytes, or `timeout` seconds pass.
    static func read(_ fd: Int32, timeout: Double, limit: Int = 1 << 20) -> Data {
        var data = Data()
        let deadline = Date() + timeout
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while data.count < limit {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000)) > 0 else { break }
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return data
    }

    /// Whether the peer has closed `fd` (a read sees the end, or the connection was reset).
    static func isClosed(_ fd: Int32, waiting: Double) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(waiting * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK)) <= 0
    }

    /// One request on a new connection; the answer read until it is whole (its `Content-Length`; for HEAD,
    /// its head), the server closes, or `timeout` passes.
    static func exchange(port: Int, _ request: String, timeout: Double = 10) throws -> Answer {
        let fd = try connect(port: port)
        defer { close(fd) }
        guard send(fd, request) else { throw Failed(description: "send failed") }
        let isHead = request.hasPrefix("HEAD ")
        var data = Data()
        let deadline = Date() + timeout
        while deadline.timeIntervalSinceNow > 0 {
            let chunk = read(fd, timeout: min(0.05, max(deadline.timeIntervalSinceNow, 0)))
            if chunk.isEmpty, isClosed(fd, waiting: 0) { break }
            data += chunk
            if let end = data.range(of: Data("\r\n\r\n".utf8)) {
                let answer = Answer(head: String(decoding: data[..<end.lowerBound], as: UTF8.self), body: Data(data[end.upperBound...]))
                if isHead { return answer }
                if let length = answer.header("content-length").flatMap({ Int($0) }), answer.body.count >= length { return answer }
            }
        }
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else {
            return Answer(head: String(decoding: data, as: UTF8.self), body: Data())
        }
        return Answer(head: String(decoding: data[..<end.lowerBound], as: UTF8.self), body: Data(data[end.upperBound...]))
    }
}
