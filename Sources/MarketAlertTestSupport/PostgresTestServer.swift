import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster for tests: `initdb` in a temporary directory, listening on 127.0.0.1 only on
/// a free port (and a socket in that directory), `fsync=off`. Debian's binaries (`postgresql` package,
/// installed by `scripts/test`); as root, every command runs as the `postgres` user, which owns the directory.
/// Start, stop (fast or immediate, i.e. a crash) and start again; `destroy()` stops it and removes it all.
package actor PostgresTestServer {
    package static let binDirectory: String = {
        let candidates = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") } ?? candidates[2]
    }()

    /// Whether the binaries are installed (tests that need them are skipped otherwise, saying why).
    /// Whether the PostgreSQL tests run: the server binaries are installed, or `scripts/test` (which installs
    /// them) demands it with `MARKETALERTD_TEST_REQUIRE_POSTGRES=1`, so a missing server fails there instead
    /// of skipping the HA tests quietly.
    package static var isAvailable: Bool {
        ProcessInfo.processInfo.environment["MARKETALERTD_TEST_REQUIRE_POSTGRES"] == "1"
            || FileManager.default.isExecutableFile(atPath: binDirectory + "/initdb")
    }

    package let directory: String
    package let port: Int
    package let user = "marketalertd"
    private var running = false

    /// Creates the cluster (does not start it).
    package init() async throws {
        let directory = "/tmp/marketalertd-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        if getuid() == 0 { try await CommandRunner.check(["chown", "postgres:postgres", directory]) }
        self.directory = directory
        self.port = Self.freePort()
        try await Self.asOwner([Self.binDirectory + "/initdb", "-D", directory + "/data", "-U", "marketalertd", "--auth=trust", "-E", "UTF8", "--no-sync"])
    }

    /// `postgres://marketalertd@127.0.0.1:PORT/DATABASE?sslmode=disable`.
    package func url(database: String = "postgres") -> String {
        "postgres://\(user)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    package func start() async throws {
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100"
        // The server outlives pg_ctl: it must not inherit the descriptor through which Foundation's `Process`
        // sees its child end, or the wait for pg_ctl would last as long as the server. Close all but 0-2 first.
        let closeInherited = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done; exec "$@""#
        try await Self.asOwner([
            "/bin/bash", "-c", closeInherited, "pg_ctl", Self.binDirectory + "/pg_ctl", "-D", directory + "/data", "-o", options,
            "-l", directory + "/log", "-w", "-t", "60", "start",
        ])
        running = true
    }

    /// A clean shutdown (`fast`: open sessions are ended) or a crash (`immediate`: like kill -9 of the server).
    package func stop(immediate: Bool = false) async throws {
        guard running else { return }
        try await Self.asOwner([Self.binDirectory + "/pg_ctl", "-D", directory + "/data", "-m", immediate ? "immediate" : "fast", "-w", "stop"])
        running = false
    }

    /// A new empty database; returns its URL.
    package func createDatabase(_ name: String = "t_\(UUID().uuidString.prefix(8).lowercased())") async throws -> String {
        try await psql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Runs SQL with psql (as the test superuser) in `database`; returns its unaligned output.
    @discardableResult
    package func psql(_ sql: String, database: String = "postgres") async throws -> String {
        let result = try await CommandRunner.check([
            Self.binDirectory + "/psql", "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", database, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql,
        ])
        return result.trimmed
    }

    /// Stops the server (immediately) and removes its files.
    package func destroy() async {
        try? await stop(immediate: true)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func asOwner(_ command: [String]) async throws {
        let wrapped = getuid() == 0 ? ["runuser", "-u", "postgres", "--"] + command : command
        try await CommandRunner.check(wrapped, timeoutSeconds: 90)
    }

    /// A port nothing listens on now: bind port 0 on 127.0.0.1, read it back, close.
    private static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return Int.random(in: 20_000...60_000) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { return Int.random(in: 20_000...60_000) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// One cluster shared by the unit tests of a test process (each test takes its own database), stopped when
/// the process exits (and by `scripts/test`'s sweep at the latest).
package enum SharedPostgres {
    private static let server = Task { () throws -> PostgresTestServer in
        let server = try await PostgresTestServer()
        try await server.start()
        let data = server.directory + "/data"
        dataDirectory.withLock { $0 = data }
        atexit {
            guard let data = SharedPostgres.dataDirectory.withLock({ $0 }) else { return }
            let stop = [PostgresTestServer.binDirectory + "/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"]
            _ = CommandRunner.runBlocking(getuid() == 0 ? ["runuser", "-u", "postgres", "--"] + stop : stop)
            try? FileManager.default.removeItem(atPath: (data as NSString).deletingLastPathComponent)
        }
        return server
    }

    private static let dataDirectory = Mutex<String?>(nil)

    /// A fresh database on the shared cluster.
    package static func database() async throws -> (server: PostgresTestServer, url: String) {
        let server = try await server.value
        return (server, try await server.createDatabase())
    }
}
