import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Secrets stay out of error texts whatever case an upstream echoes them in; secrets too short to scrub are
/// left alone (and warned about by name).
@Suite("Secret scrubbing")
struct SecretScrubbingTests {
    static let appID = "FeedFace0123456789abcdefFEEDface"

    @Test("an upstream echoing the OXR app id lower-cased, upper-cased or percent-encoded does not leak it",
          arguments: ["lower", "upper", "encoded", "cut"])
    func oxrEchoInAnyCase(form: String) async throws {
        let error = await #expect(throws: SourceError.self) {
            try await FXTest.withServer { server, fetcher in
                server.route("/api/latest.json") { request in
                    let id = String((request.header("Authorization") ?? "").dropFirst("Token ".count))
                    let echoed = switch form {
                    case "lower": "invalid app id \(id.lowercased()) (check your account)"
                    case "upper": "INVALID APP ID \(id.uppercased())"
                    case "encoded": "app_id=" + (id.lowercased().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                    default: String(repeating: "x", count: 34) + " app id " + id.lowercased()  // the 120-character snippet cuts it after 9
                    }
                    return .json(#"{"error":true,"status":401,"message":"invalid_app_id","description":"\#(echoed)"}"#, status: 401)
                }
                _ = try await OpenExchangeRatesSource(baseURL: server.baseURL, appID: Self.appID, timeout: .seconds(5), fetcher: fetcher)
                    .fetchUSDRates(for: ["KRW"])
            }
        }
        // The message (what events carry) is the status only; the body excerpt (debug logs) is scrubbed.
        #expect(error?.message == "HTTP 401 Unauthorized")
        let upstream = try #require(error?.upstream)
        #expect(upstream.contains("<redacted>"), "\(upstream)")
        let lowered = upstream.lowercased()
        let pieces = (0...(Self.appID.count - 6)).map { String(Array(Self.appID.lowercased())[$0..<($0 + 6)]) }
        #expect(pieces.allSatisfy { !lowered.contains($0) }, "\(upstream)")
    }

    /// An echo no scrubber can know (the app id base64-encoded) must not reach an event: the message is
    /// the HTTP status alone, whatever the body says.
    @Test("an upstream 401 body echoing the app id base64-encoded stays out of the message")
    func base64EchoStaysOutOfTheMessage() async throws {
        let encoded = Data(Self.appID.utf8).base64EncodedString()
        let error = await #expect(throws: SourceError.self) {
            try await FXTest.withServer { server, fetcher in
                server.route(
                    "/api/latest.json",
                    response: .json(#"{"error":true,"status":401,"message":"invalid_app_id","description":"key \#(encoded)"}"#, status: 401))
                _ = try await OpenExchangeRatesSource(baseURL: server.baseURL, appID: Self.appID, timeout: .seconds(5), fetcher: fetcher)
                    .fetchUSDRates(for: ["KRW"])
            }
        }
        #expect(error?.message == "HTTP 401 Unauthorized")
        #expect(error?.description.contains(encoded.prefix(12)) == false)
        #expect(error?.kind == .http(status: 401))
    }

    @Test("a secret shorter than 8 characters is not scrubbed: the message stays readable")
    func shortSecretsAreNotScrubbed() async throws {
        let error = await #expect(throws: SourceError.self) {
            try await FXTest.withServer { server, fetcher in
                server.route("/api/latest.json", response: .json(#"{"error":true,"status":401,"message":"invalid_app_id"}"#, status: 401))
                _ = try await OpenExchangeRatesSource(baseURL: server.baseURL, appID: "a", timeout: .seconds(5), fetcher: fetcher)
                    .fetchUSDRates(for: ["KRW"])
            }
        }
        #expect(error?.message == "HTTP 401 Unauthorized")
        #expect(error?.upstream == #"{"error":true,"status":401,"message":"invalid_app_id"}"#)
    }

    @Test("scrubber: any case, percent-encoded, a cut-off copy at the end; short secrets untouched")
    func scrubber() {
        let secret = "Tok3n/Secret+Value"
        #expect(SecretScrubber.scrub("a TOK3N/SECRET+VALUE b", secrets: [secret]) == "a <redacted> b")
        #expect(SecretScrubber.scrub("q=tok3n%2fsecret%2bvalue", secrets: [secret]) == "q=<redacted>")
        #expect(SecretScrubber.scrub("body: tok3n/sec", secrets: [secret], partialSuffix: true) == "body: <redacted>")
        #expect(SecretScrubber.scrub("a a a", secrets: ["a"]) == "a a a")
        #expect(SecretScrubber.isTooShort("1234567") && !SecretScrubber.isTooShort("12345678"))
    }

    @Test("a webhook URL is redacted in any case")
    func webhookRedactionIgnoresCase() throws {
        let target = WebhookTarget(name: "chat", url: try #require(URL(string: "https://hooks.example/services/T000/XyZsecretTOKEN")))
        #expect(!target.redact("404 for /SERVICES/T000/XYZSECRETTOKEN").lowercased().contains("xyzsecrettoken"))
    }

    @Test("a short app id is warned about at load, by name, never by value")
    func shortSecretWarningAtLoad() async throws {
        var fx = FXSettings()
        fx.providers = [FXProviderSettings(kind: .openexchangerates, baseURL: Settings.defaultBaseURL(.openexchangerates), appIDEnv: "OXR_APP_ID")]
        try await FXTest.withServer { _, fetcher in
            let made = RateSources.makeAll(fx, fetcher: fetcher, secrets: SecretResolver(environment: ["OXR_APP_ID": "q9Z"]))
            #expect(made.sources.count == 1)
            let issue = try #require(made.issues.first)
            #expect(issue.severity == .warning)
            #expect(issue.path == "fx.providers[0].app_id_env")
            #expect(issue.message.contains("OXR_APP_ID is only 3 characters"))
            #expect(!issue.description.contains("q9Z"))
        }
    }
}
