import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// The v2 `ha:` section: the database URL's secret name, the lease, the instance name.
@Suite struct HASettingsTests {
    @Test func defaultsAndValues() throws {
        #expect(try ConfigLoader.parse(yaml: "state_dir: /tmp\n").settings.ha == nil)
        let defaults = try #require(try ConfigLoader.parse(yaml: "ha: {}\n").settings.ha)
        #expect(defaults == HASettings(postgresURLEnv: "MARKETALERTD_DATABASE_URL", lease: .seconds(10), instance: nil))
        let set = try #require(
            try ConfigLoader.parse(yaml: "ha:\n  postgres_url_env: PG_URL\n  lease: 2s\n  instance: host-a\n").settings.ha)
        #expect(set == HASettings(postgresURLEnv: "PG_URL", lease: .seconds(2), instance: "host-a"))
    }

    @Test(arguments: [
        ("ha:\n  lease: 500ms\n", "ha.lease", "at least 1s"),
        ("ha:\n  lease: soon\n", "ha.lease", "expected a duration"),
        ("ha:\n  postgres_url_env: \"a/b\"\n", "ha.postgres_url_env", "expected the name"),
        ("ha:\n  instance: \"  \"\n", "ha.instance", "non-empty"),
        ("ha:\n  leader: true\n", "ha.leader", "unknown key"),
    ])
    func badSectionsNameTheKey(yaml: String, path: String, fragment: String) throws {
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let issue = try #require(error.issues.first { $0.path == path }, "no issue for \(path) in \(error)")
        #expect(issue.message.contains(fragment), "\(issue)")
    }

    @Test func theURLParsesAndIsRedacted() throws {
        let url = try PostgresURL("postgres://alert:s3cr%40t@db.example:6432/alerts?sslmode=require")
        #expect(url.user == "alert" && url.password == "s3cr@t" && url.host == "db.example" && url.port == 6432)
        #expect(url.database == "alerts" && url.tls == .require)
        #expect(url.redacted == "postgres://alert@db.example:6432/alerts")
        #expect(!url.redacted.contains("s3cr"))
        for bad in ["mysql://a@b/c", "postgres:///c", "postgres://b:5432/c", "postgres://a@b/c?sslmode=maybe"] {
            let error = try #require(throws: PostgresURL.Invalid.self) { try PostgresURL(bad) }
            #expect(!error.description.contains("b:5432"))
        }
    }
}
