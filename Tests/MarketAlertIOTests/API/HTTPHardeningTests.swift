import Foundation
import MarketAlertCore
import Testing

@testable import MarketAlertIO

/// The pure parts of the HTTP hardening of issue #26: markup escaping over scalars, which hosts and origins
/// the API serves, strict RFC 3339, silence text and start checks, and terminal-safe tables.
@Suite struct HTTPHardeningTests {
    static let specials: [String] = ["&", "<", ">", "\"", "'"]
    /// Scalars that join a neighbour into one grapheme: Prepend (U+0600, U+0605, U+06DD, U+110BD), Extend
    /// (U+0301, U+200C, U+FE0F, U+E0100), ZWJ, and a spacing mark (U+0903).
    static let joiners: [Unicode.Scalar] = ["\u{600}", "\u{605}", "\u{6DD}", "\u{110BD}", "\u{301}", "\u{200C}", "\u{FE0F}", "\u{E0100}", "\u{200D}", "\u{903}"]

    /// No raw `<`, `>`, `"` or `'` survives, and every `&` starts one of the five entities.
    static func isEscaped(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if ["<", ">", "\"", "'"].contains(scalar) { return false }
            if scalar == "&" {
                // Compared scalar by scalar: a `String` prefix check would be fooled by the very joiners tested.
                let rest = scalars[index...]
                guard ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].contains(where: { rest.starts(with: Array($0.unicodeScalars)) }) else { return false }
            }
        }
        return true
    }

    @Test func escapingCoversEverySpecialCharacterBesideJoiningScalars() {
        for special in Self.specials {
            for joiner in Self.joiners {
                for text in ["\(joiner)\(special)", "\(special)\(joiner)", "a\(joiner)\(special)\(joiner)b", "\(joiner)\(special)img src=x onerror=1\(special)\(joiner)"] {
                    #expect(Self.isEscaped(MarkupEscaping.html(text)), "MarkupEscaping.html(\(text.unicodeScalars.map { String($0.value, radix: 16) }))")
                    #expect(Self.isEscaped(HistoryChart.escape(text)), "HistoryChart.escape(\(text.unicodeScalars.map { String($0.value, radix: 16) }))")
                }
            }
        }
        // The joiners themselves are kept (only the special characters change), and NUL never reaches the page.
        #expect(MarkupEscaping.html("\u{600}<b>\u{301}") == "\u{600}&lt;b&gt;\u{301}")
        #expect(MarkupEscaping.html("a\u{0}b") == "a\u{FFFD}b")
    }

    @Test func theSVGChartEscapesAHostileRuleAndAsset() throws {
        let rule = PremiumRule(name: "r\u{600}<script>x</script>\"\u{301}", assets: ["B\u{600}<i>"], exchanges: [], quotes: [], levels: [], clearPct: 1)
        let svg = HistoryChart.plot([], rule: rule, asset: "B\u{600}<i>\u{301}", since: Date(timeIntervalSince1970: 0), until: Date(timeIntervalSince1970: 3600), timeZone: .gmt)
        #expect(!svg.contains("<script") && !svg.contains("<i>"))
        let joinedQuote = String(String.UnicodeScalarView(["\"", "\u{301}"]))
        #expect(!svg.contains(joinedQuote))
    }

    @Test func hostsThatNameThisServerAreServedAndOthersAreNot() {
        for host in ["127.0.0.1:9108", "127.0.0.1", "[::1]:9108", "[::1]", "localhost:9108", "LOCALHOST", "app.localhost:1", "10.1.2.3:80", "alerts.lan:9108"] {
            #expect(RequestOrigin.hostAllowed(host, listenHost: "alerts.lan"), "\(host)")
        }
        #expect(RequestOrigin.hostAllowed(nil, listenHost: "127.0.0.1"))
        for host in ["evil.example", "evil.example:9108", "127.0.0.1.evil.example", "localhost.evil.example", "a@127.0.0.1", "127.0.0.1:x", "[::1", " "] {
            #expect(!RequestOrigin.hostAllowed(host, listenHost: "127.0.0.1"), "\(host)")
        }
    }

    @Test func onlyTheServersOwnOriginMayChangeState() {
        #expect(RequestOrigin.crossSiteRefusal(origin: nil, fetchSite: nil, authority: "127.0.0.1:9108") == nil)
        #expect(RequestOrigin.crossSiteRefusal(origin: "http://127.0.0.1:9108", fetchSite: "same-origin", authority: "127.0.0.1:9108") == nil)
        #expect(RequestOrigin.crossSiteRefusal(origin: "http://localhost", fetchSite: "none", authority: "localhost:80") == nil)
        #expect(RequestOrigin.crossSiteRefusal(origin: "http://[::1]:9108", fetchSite: nil, authority: "[::1]:9108") == nil)
        for (origin, site) in [
            ("http://evil.example", nil), ("null", nil), ("http://127.0.0.1:9109", nil), ("https://127.0.0.1:9108", nil),
            ("http://127.0.0.1:9108", "cross-site"), ("http://127.0.0.1:9108", "same-site"), (nil, "cross-site"),
        ] as [(String?, String?)] {
            #expect(RequestOrigin.crossSiteRefusal(origin: origin, fetchSite: site, authority: "127.0.0.1:9108") != nil, "\(String(describing: origin)) \(String(describing: site))")
        }
        #expect(RequestOrigin.isJSON("application/json"))
        #expect(RequestOrigin.isJSON("Application/JSON; charset=utf-8"))
        for type in [nil, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"] as [String?] {
            #expect(!RequestOrigin.isJSON(type), "\(String(describing: type))")
        }
    }

    @Test func rfc3339TimesNameRealDays() {
        #expect(StrictRFC3339.parse("2026-02-30T00:00:00Z") == nil)
        #expect(StrictRFC3339.parse("2026-02-29T00:00:00Z") == nil)
        #expect(StrictRFC3339.parse("2026-04-31T00:00:00Z") == nil)
        #expect(StrictRFC3339.parse("2026-13-01T00:00:00Z") == nil)
        #expect(StrictRFC3339.parse("2026-01-01T24:00:00Z") == nil)
        #expect(StrictRFC3339.parse("2026-01-01T00:00:00+25:00") == nil)
        #expect(StrictRFC3339.parse("2026-01-01") == nil)
        #expect(StrictRFC3339.parse("2024-02-29T12:00:00Z") == Timestamp.parseRFC3339("2024-02-29T12:00:00Z"))
        #expect(StrictRFC3339.parse("2026-03-10T12:00:00.250Z") == Date(timeIntervalSince1970: 1_773_144_000.25))
        #expect(StrictRFC3339.parse("2026-03-10T21:00:00+09:00") == Date(timeIntervalSince1970: 1_773_144_000))
    }

    @Test func silenceTextRefusesControlAndFormatCharactersAndStartsWithinAYear() {
        let now = Date(timeIntervalSince1970: 1_773_144_000)
        func problem(_ json: String) -> SilenceRequest.Problem? {
            if case .failure(let problem) = SilenceRequest.parse(Data(json.utf8), now: now, id: "x") { return problem }
            return nil
        }
        for bad in ["\\u001b[2J", "a\\u0007b", "a\\bb", "\\u202eevil", "\\u0600<b>", "x\\u200by"] {
            #expect(problem(#"{"matchers":{"key":"*"},"duration":"1h","comment":"\#(bad)"}"#)?.field == "comment", "\(bad)")
            #expect(problem(#"{"matchers":{"key":"*"},"duration":"1h","comment":"c","created_by":"\#(bad)"}"#)?.field == "created_by")
            #expect(problem(#"{"matchers":{"key":"\#(bad)"},"duration":"1h","comment":"c"}"#)?.field == "matchers.key")
        }
        #expect(problem(#"{"matchers":{"key":"*"},"duration":"1h","comment":"ünïcode 泰宗 é"}"#) == nil)
        #expect(problem(#"{"matchers":{"key":"*"},"starts_at":"9999-01-01T00:00:00Z","duration":"1h","comment":"c"}"#)?.field == "starts_at")
        #expect(problem(#"{"matchers":{"key":"*"},"starts_at":"2026-02-30T00:00:00Z","duration":"1h","comment":"c"}"#)?.field == "starts_at")
        #expect(problem(#"{"matchers":{"key":"*"},"starts_at":"2026-03-11T00:00:00Z","duration":"1h","comment":"c"}"#) == nil)
    }

    @Test func aShortTokenIsWarnedAbout() {
        let http = HTTPSettings(host: "127.0.0.1", port: 0, tokenEnv: "T")
        let short = APIAccess().configure(http, secrets: SecretResolver(environment: ["T": "1234567"]))
        #expect(short?.contains("at least 8") == true, "\(String(describing: short))")
        #expect(short?.contains("1234567") == false, "the token itself is never in a message")
        #expect(APIAccess().configure(http, secrets: SecretResolver(environment: ["T": "12345678"])) == nil)
    }

    @Test func wrongTokensAreThrottledPerClientAndTheRightOneStillPasses() {
        let access = APIAccess()
        access.configure(HTTPSettings(host: "127.0.0.1", port: 0, tokenEnv: "T"), secrets: SecretResolver(environment: ["T": "s3cret-token"]))
        let t0 = Date(timeIntervalSince1970: 1_773_144_000)
        var decisions: [APIAccess.Decision] = []
        for i in 0..<20 { decisions.append(access.authorize("Bearer guess\(i)", client: "10.0.0.9", now: t0)) }
        #expect(decisions.prefix(5).allSatisfy { $0 == .unauthorized })
        #expect(decisions.dropFirst(5).allSatisfy { $0 == .throttled(retryAfter: 1) }, "\(decisions)")
        // While throttled even the right token is not looked at from that address; another address is not held up.
        #expect(access.authorize("Bearer s3cret-token", client: "10.0.0.9", now: t0) == .throttled(retryAfter: 1))
        #expect(access.authorize("Bearer s3cret-token", client: "127.0.0.1", now: t0) == .allowed)
        // One try a second comes back.
        #expect(access.authorize("Bearer guess", client: "10.0.0.9", now: t0 + 1) == .unauthorized)
        #expect(access.authorize("Bearer guess", client: "10.0.0.9", now: t0 + 1.5) == .throttled(retryAfter: 1))
        #expect(access.authorize("Bearer s3cret-token", client: "10.0.0.9", now: t0 + 2) == .allowed)
        // A right token costs nothing.
        for _ in 0..<20 { #expect(access.authorize("Bearer s3cret-token", client: "10.0.0.8", now: t0) == .allowed) }
    }

    @Test func terminalTablesShowControlCharactersEscaped() {
        var table = TextTable(["A", "B"])
        table.add(["x\u{1b}[2Jy", "bell\u{7}\u{8}\u{202E}"])
        let text = table.render()
        #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" })
        #expect(text.contains("x\\u{1b}[2Jy"))
        #expect(text.contains("bell\\u{7}\\u{8}\\u{202e}"))
        let listed = try? CLIReport.silences(Data(#"{"silences":[{"id":"a","matchers":{"key":"*"},"comment":"\u001b]0;pwn\u0007","created_by":"x\b"}]}"#.utf8))
        #expect(listed?.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" } == false, "\(String(describing: listed))")
    }
}
