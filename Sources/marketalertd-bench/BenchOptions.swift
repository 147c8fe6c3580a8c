import Foundation
import MarketAlertCore
import MarketAlertIO

/// Command-line flags of `marketalertd-bench`.
///
///     marketalertd-bench [--iterations N] [--eval-iterations N] [--fixtures DIR]
///     marketalertd-bench --rss [--seconds N] [--binary PATH] [--fixtures DIR]
///
/// Without `--rss` it times decoding and evaluation in this process; with `--rss` it runs the release daemon
/// against local mock exchanges and samples its resident memory.
struct BenchOptions {
    var iterations = 200
    var evalIterations = 2000
    var rss = false
    var idle = false
    var streams = false
    var ha = false
    /// Only the v3 depth benchmarks: one depth message per adapter, the checksum adapters, the executable premium.
    var depthOnly = false
    /// `--depth-streams`: the daemon with a `basis: depth` rule over the round-2 eight, every market fed depth
    /// messages (`DepthFeeds`) at `--rate` a second (default 10), `--pattern spread|grouped`.
    var depthStreams = false
    var depthPattern = DepthFeeds.Pattern.spread
    var rate = 50
    var rateGiven = false
    /// The Python interpreter for the peer run (with websockets and orjson), and the peer's script.
    var peerPython: String?
    var peerScript = "scripts/bench-peer.py"
    /// A third client for the peer run: the built scripts/bench-floor.c.
    var floor: String?
    var seconds = 60
    /// Watched assets per exchange for the daemon runs (`--rss`, `--streams`); the in-process tables use 50.
    var assets = BenchMarkets.assetCount
    var binary = ".build/release/marketalertd"
    /// The exchanges of the daemon runs (`--exchanges`); nil: every registry exchange. The issues' budgets
    /// name the round-2 eight (`round2`).
    var exchanges: [ExchangeID]?
    /// `--drop-every N`: the streaming run drops every connection each N seconds (memory across reconnects).
    var dropEvery: Int?
    var fixtures: String?

    static let usage = """
        usage: marketalertd-bench [--iterations N] [--eval-iterations N] [--fixtures DIR]
               marketalertd-bench --rss [--seconds N] [--binary PATH] [--fixtures DIR]
               marketalertd-bench --idle [--seconds N] [--binary PATH] [--fixtures DIR]
               marketalertd-bench --streams [--seconds N] [--rate N] [--assets N] [--binary PATH] [--fixtures DIR]
               marketalertd-bench --peer PYTHON [--peer-script PATH] [--floor PATH] [--seconds N] [--rate N] [--binary PATH]
               marketalertd-bench --ha [--iterations N]
               marketalertd-bench --depth [--eval-iterations N]
               marketalertd-bench --depth-streams [--pattern spread|grouped] [--seconds N] [--rate N] [--binary PATH]

          --iterations N       timed decode runs per payload after warm-up (default 200)
          --eval-iterations N  timed full evaluations after warm-up (default 2000)
          --depth              only the v3 depth benchmarks (depth messages per adapter, checksum adapters,
                               executable premium)
          --depth-streams      the daemon with one basis: depth rule over binance, bybit, bitget, okx, kraken,
                               coinbase, upbit, bithumb × 50 assets, every market fed depth messages in its
                               exchange's wire shape (checksums, update ids kept) at --rate a second (default 10;
                               Coinbase: ticker frames, its books REST-polled): CPU ≤ 5%, RSS ≤ 50 MB and flat,
                               frame → notification p99 ≤ 2 ms
          --pattern P          under --depth-streams: spread (each exchange's markets evenly over each 100 ms,
                               default) or grouped (each exchange's markets together on its 100 ms tick)
          --rss                run the release daemon against local mock exchanges and sample its memory
          --idle               the same with hourly polls: the daemon's CPU when nothing happens
          --streams            the same with every exchange streaming from a local WebSocket server
          --peer PYTHON        the daemon and a Python client (scripts/bench-peer.py run by PYTHON, which has
                               websockets and orjson) on one local Binance bookTicker stream of 50 markets,
                               --rate frames/s to each (default 200): CPU per frame, the daemon's against the peer's
          --peer-script PATH   the peer's script (default scripts/bench-peer.py)
          --floor PATH         under --peer: a third client on the same frames, scripts/bench-floor.c built
                               (one blocking read a frame): the host's floor, and each client's CPU above it
          --ha                 the fenced PostgreSQL writes of one transition, on a private cluster (needs
                               Debian's postgresql; run as root it uses the postgres user)
          --rate N             frames per second per exchange under --streams (default 50)
          --assets N           watched assets per exchange under --rss/--streams (default 50; the whole-market
                               budget, 8 exchanges × 300 assets streaming: CPU ≤ 3%, RSS ≤ 45 MB, flat)
          --exchanges LIST     the exchanges of --rss/--idle/--streams, comma-separated, or `round2` for
                               the eight the budgets name (binance, bybit, bitget, okx, kraken, coinbase,
                               upbit, bithumb); default every registry exchange
          --drop-every N       under --streams: drop every connection each N seconds (the daemon reconnects
                               and subscribes again; its memory must stay flat across reconnects)
          --seconds N          how long the daemon runs under --rss (default 60)
          --binary PATH        the daemon to run under --rss (default .build/release/marketalertd)
          --fixtures DIR       recorded payloads (default ./Tests/Fixtures, else the package's)
        """

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> BenchOptions {
        var options = BenchOptions()
        var rest = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        func positive(_ flag: String) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else { throw UsageError(description: "\(flag): expected a positive integer, got \(text)") }
            return number
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--iterations": options.iterations = try positive(flag)
            case "--eval-iterations": options.evalIterations = try positive(flag)
            case "--rss": options.rss = true
            case "--idle": options.rss = true; options.idle = true
            case "--streams": options.rss = true; options.streams = true
            case "--ha": options.ha = true
            case "--depth": options.depthOnly = true
            case "--depth-streams": options.depthStreams = true
            case "--pattern":
                let text = try value(flag)
                guard let pattern = DepthFeeds.Pattern(rawValue: text) else { throw UsageError(description: "--pattern: spread or grouped, got \(text)") }
                options.depthPattern = pattern
            case "--rate": options.rate = try positive(flag); options.rateGiven = true
            case "--peer": options.peerPython = try value(flag)
            case "--peer-script": options.peerScript = try value(flag)
            case "--floor": options.floor = try value(flag)
            case "--seconds": options.seconds = try positive(flag)
            case "--assets": options.assets = try positive(flag)
            case "--binary": options.binary = try value(flag)
            case "--exchanges": options.exchanges = try exchangeList(try value(flag))
            case "--drop-every": options.dropEvery = try positive(flag)
            case "--fixtures": options.fixtures = try value(flag)
            case "-h", "--help": throw UsageError(description: usage)
            default: throw UsageError(description: "unknown argument \(flag)\n\(usage)")
            }
        }
        return options
    }

    /// The eight exchanges of round 2, which the issues' daemon budgets ("8 exchanges × 50 assets") name.
    static let roundTwo: [ExchangeID] = [.binance, .bybit, .bitget, .okx, .kraken, .coinbase, .upbit, .bithumb]

    static func exchangeList(_ text: String) throws(UsageError) -> [ExchangeID] {
        if text == "round2" { return roundTwo }
        var result: [ExchangeID] = []
        for name in text.split(separator: ",") {
            let id = ExchangeID(rawValue: String(name))
            guard ExchangeRegistry.standard.ids.contains(id) else {
                throw UsageError(description: "--exchanges: unknown exchange \(name)")
            }
            result.append(id)
        }
        guard !result.isEmpty else { throw UsageError(description: "--exchanges: name at least one exchange") }
        return result
    }
}
