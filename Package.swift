// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "marketalertd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "marketalertd", targets: ["marketalertd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // Pure domain: types, premium math, alert and IPO state machines, config schema and validation.
        // Foundation value types only (Date, Decimal, Calendar); no I/O, no networking, no logging.
        .target(name: "MarketAlertCore"),

        // Thin C module over libsystemd (sd_journal_sendv, sd_notify, sd_watchdog_enabled).
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),

        // Thin C module over the system zlib (HTX sends every stream frame gzip-compressed).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // The layers, bottom up; a target sees only those below it (the compiler holds the layering):
        //   MarketAlertCore (pure) → MarketAlertKit → MarketAlertExchanges → MarketAlertConfigReader
        //   → MarketAlertStorage → MarketAlertHA | MarketAlertDelivery → MarketAlertEngineLoop
        //   → MarketAlertOperations → MarketAlertIO (the daemon's wiring) → marketalertd (the executable).

        // Base kit: the injected clock and its deadlines, queues, blocking work off the pool, the lifecycle
        // observer, the bounded background writer, source errors, secrets and their scrubbing. No networking.
        .target(
            name: "MarketAlertKit",
            dependencies: ["MarketAlertCore", .product(name: "Logging", package: "swift-log")]
        ),

        // The exchanges and the other market-data sources: one folder per exchange (its REST decoding and
        // source, its stream protocol and decoder, its descriptor) and the registry; the stream intake and
        // frame parsing; the FX providers and TWSE. They reach HTTP only through the `HTTPFetcher` seam, so
        // no HTTP client, TLS or database is built with them (the fuzz target needs only this).
        .target(
            name: "MarketAlertExchanges",
            dependencies: [
                "MarketAlertCore", "MarketAlertKit", "CZlib",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),

        // The config reader: YAML (with line numbers and a size budget) to validated `Settings`.
        .target(
            name: "MarketAlertConfigReader",
            dependencies: [
                "MarketAlertCore", "MarketAlertKit", "MarketAlertExchanges",
                .product(name: "Yams", package: "Yams"),
            ]
        ),

        // The state stores: the store protocols (alerts and notifications, the durable outbox's queue,
        // silences, history) with their two backends, SQLite (GRDB) and PostgreSQL (postgres-nio, every write
        // fenced by the leader lease), the lease's queries, and HA's shared vocabulary (role, leadership events).
        .target(
            name: "MarketAlertStorage",
            dependencies: [
                "MarketAlertCore", "MarketAlertKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // High availability: the leader lease as a service (its pure machine, `LeaderLease`, is Core's), the
        // takeover's read of the stored states, the HA status line and the connection check of `check-config`.
        .target(
            name: "MarketAlertHA",
            dependencies: [
                "MarketAlertCore", "MarketAlertKit", "MarketAlertStorage",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Delivery: the one publish path (commit → fan-out → clear), the sinks (stdout, the journal through
        // libsystemd, the log handlers) and the durable outbox with its delivery targets (webhooks, ntfy, email over SMTP).
        .target(
            name: "MarketAlertDelivery",
            dependencies: [
                "MarketAlertCore", "MarketAlertKit", "MarketAlertExchanges", "MarketAlertStorage", "CSystemd",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // The engine's shell: the inbox, the loop that performs the pure engine's actions on an injected
        // clock, and the stream-quote decision site (`EngineCore`).
        .target(
            name: "MarketAlertEngineLoop",
            dependencies: [
                "MarketAlertCore", "MarketAlertKit", "MarketAlertExchanges", "MarketAlertStorage", "MarketAlertDelivery",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Operations: the HTTP server (status page, JSON API, /metrics), the metrics registry, the history
        // chart, and the CLI's API client.
        .target(
            name: "MarketAlertOperations",
            dependencies: [
                "MarketAlertCore", "MarketAlertKit", "MarketAlertExchanges", "MarketAlertConfigReader", "MarketAlertStorage",
                "MarketAlertDelivery", "MarketAlertEngineLoop",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),

        // The daemon's wiring, the top layer: the producers and their supervisor, the HTTP client and the
        // WebSocket transport (on the data path's event loop), HA membership and takeover, config reload,
        // `once` and `history`. It re-exports the layers below for the executable, the bench and the tests.
        .target(
            name: "MarketAlertIO",
            dependencies: [
                "MarketAlertCore", "MarketAlertKit", "MarketAlertExchanges", "MarketAlertConfigReader", "MarketAlertStorage",
                "MarketAlertDelivery", "MarketAlertEngineLoop", "MarketAlertOperations", "MarketAlertHA", "CSystemd",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),

        // The daemon: parses the command line and wires MarketAlertIO together. Nothing else.
        .executableTarget(
            name: "marketalertd",
            dependencies: [
                "MarketAlertIO",
                "MarketAlertCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Counts a thread's heap allocations (replaces malloc and friends, forwarding to glibc's): linked into
        // the benchmark only, for its "allocates nothing per message" budgets.
        .target(name: "CAllocationCounter"),

        // Budgets for decode and evaluation (run by scripts/bench); not a test.
        .executableTarget(
            name: "marketalertd-bench",
            dependencies: [
                "MarketAlertIO", "MarketAlertCore", "MarketAlertTestSupport", "CAllocationCounter",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),

        // libFuzzer targets for the REST decoders, the stream decoders and frame parser, and the config reader, in one binary (scripts/fuzz builds it
        // with -D FUZZING --sanitize=fuzzer); in a plain build it replays saved inputs given as arguments.
        .executableTarget(
            name: "marketalertd-fuzz",
            dependencies: [
                "MarketAlertCore", "MarketAlertKit", "MarketAlertExchanges", "MarketAlertConfigReader",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Fuzz"
        ),

        // Test-only helpers: real HTTP and WebSocket servers on 127.0.0.1 (SwiftNIO), fixtures access, a manual clock.
        .target(
            name: "MarketAlertTestSupport",
            dependencies: [
                "MarketAlertCore",
                "MarketAlertIO",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),

        .testTarget(
            name: "MarketAlertCoreTests",
            dependencies: ["MarketAlertCore", "MarketAlertTestSupport"]
        ),
        .testTarget(
            name: "MarketAlertIOTests",
            dependencies: [
                "MarketAlertIO", "MarketAlertCore", "MarketAlertTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Runs the built `marketalertd` binary (and, where possible, a real systemd) against local servers.
        .testTarget(
            name: "MarketAlertIntegrationTests",
            dependencies: [
                "MarketAlertCore", "MarketAlertIO", "MarketAlertTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)
