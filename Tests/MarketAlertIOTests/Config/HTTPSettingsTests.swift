import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// The v2 `http:` section: where to listen, and the token a non-loopback address requires.
@Suite struct HTTPSettingsTests {
    @Test(arguments: [
        ("127.0.0.1:9108", "127.0.0.1", 9108, true),
        ("127.0.0.1:0", "127.0.0.1", 0, true),
        ("localhost:9108", "localhost", 9108, true),
        ("[::1]:9108", "::1", 9108, true),
        ("127.1.2.3:80", "127.1.2.3", 80, true),
        ("0.0.0.0:9108", "0.0.0.0", 9108, false),
        ("[::]:9108", "::", 9108, false),
        ("10.0.0.5:9108", "10.0.0.5", 9108, false),
    ])
    func listenAddresses(listen: String, host: String, port: Int, loopback: Bool) throws {
        let token = loopback ? "" : "\n  token_env: MARKETALERTD_API_TOKEN"
        let settings = try ConfigLoader.parse(yaml: "http:\n  listen: \"\(listen)\"\(token)\n").settings
        let http = try #require(settings.http)
        #expect(http.host == host)
        #expect(http.port == port)
        #expect(http.isLoopback == loopback)
        #expect(http.listen == listen)
    }

    @Test func withoutTheSectionNothingIsServed() throws {
        #expect(try ConfigLoader.parse(yaml: "state_dir: /tmp\n").settings.http == nil)
    }

    @Test(arguments: [
        ("http:\n  listen: \"0.0.0.0:9108\"\n", "http.token_env", "reachable from other machines"),
        ("http:\n  listen: \"127.0.0.1\"\n", "http.listen", "expected HOST:PORT"),
        ("http:\n  listen: \"127.0.0.1:99999\"\n", "http.listen", "expected HOST:PORT"),
        ("http:\n  listen: \":9108\"\n", "http.listen", "expected HOST:PORT"),
        ("http:\n  listen: \"::1:9108\"\n", "http.listen", "expected HOST:PORT"),
        ("http:\n  token_env: X\n", "http.listen", "required key is missing"),
        ("http:\n  listen: \"127.0.0.1:9108\"\n  port: 1\n", "http.port", "unknown key"),
        ("http:\n  listen: \"127.0.0.1:9108\"\n  token_env: \"a/b\"\n", "http.token_env", "expected the name"),
        ("http: 9108\n", "http", "expected a mapping"),
    ])
    func badSectionsNameTheKey(yaml: String, path: String, fragment: String) throws {
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let issue = try #require(error.issues.first { $0.path == path }, "no issue for \(path) in \(error)")
        #expect(issue.message.contains(fragment), "\(issue)")
    }
}
