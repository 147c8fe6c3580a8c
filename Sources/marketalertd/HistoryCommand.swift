import ArgumentParser
import Foundation
import MarketAlertCore
import MarketAlertIO

/// `marketalertd history --rule R --asset A --since 7d [--plot FILE.svg]`: reads the state store directly
/// (read-only; works while the daemon runs), not the API.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show a rule's premium history for one asset: min / max / last per day in each display zone; optionally an SVG chart.")

    @Option(name: .shortAndLong, help: "Path to the YAML config file (for state_dir, the rule's levels and the display zones).")
    var config: String = "/etc/marketalertd/marketalertd.yaml"

    @Option(help: "The premium rule's name.")
    var rule: String

    @Option(help: "The asset, e.g. BTC.")
    var asset: String

    @Option(help: "How far back, e.g. 24h, 7d.")
    var since: String = "7d"

    @Option(help: "Also write an SVG chart of pct over time, with the rule's levels, to this file.")
    var plot: String?

    func run() async throws {
        _ = LoggingSetup.bootstrap(level: .warning)  // a skipped corrupt row is logged to stderr, never into the report
        guard let window = DurationText.parse(since), window > .zero else {
            throw ValidationError("--since: expected a duration such as 24h or 7d, got \"\(since)\"")
        }
        let settings: Settings
        do throws(ConfigError) {
            settings = try ConfigLoader.load(path: config).settings
        } catch {
            for issue in error.issues { FileHandle.standardError.write(Data("\(config): \(issue)\n".utf8)) }
            throw ExitCode(1)
        }
        do {
            print(
                try await HistoryReport.run(
                    settings: settings, rule: rule, asset: asset, since: window, plot: plot, now: Date(),
                    environment: ProcessInfo.processInfo.environment))
        } catch {
            FileHandle.standardError.write(Data("marketalertd history: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
