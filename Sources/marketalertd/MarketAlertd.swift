import ArgumentParser
import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO

@main
struct MarketAlertd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marketalertd",
        abstract: "Alerts on cross-exchange crypto premiums and Taiwan IPO subscription windows.",
        discussion: """
            marketalertd polls the public tickers of crypto exchanges, converts every price into one reference \
            currency (KRW through USD/KRW rates), and alerts when the premium between the dearest and the \
            cheapest exchange crosses a level and when it clears. It also watches TWSE's public-subscription \
            calendar and alerts when a subscription opens and on its last day. Alerts go to stdout, webhooks \
            and the systemd journal.
            """,
        version: MarketAlertVersion.current,
        subcommands: [Run.self, CheckConfig.self, Once.self, Status.self, Alerts.self, SilenceCommand.self, HistoryCommand.self],
        defaultSubcommand: Run.self
    )

    /// Tunes glibc malloc before any other thread allocates (see `MallocTuning`), then runs the command.
    static func main() async {
        _ = MallocTuning.atStartup
        await main(nil)
    }
}

struct ConfigOption: ParsableArguments {
    @Option(name: .shortAndLong, help: "Path to the YAML config file.")
    var config: String = "/etc/marketalertd/marketalertd.yaml"

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the daemon (the default). SIGHUP reloads the config; SIGTERM or SIGINT stops it gracefully.")

    @OptionGroup var options: ConfigOption

    func run() async throws {
        let logger = DaemonLogging.bootstrapDaemonLogging(level: options.logLevel)
        let code = await Daemon.run(configPath: options.config, logger: logger, lifecycle: DaemonLogging.lifecycleObserver())
        if code != 0 { throw ExitCode(code) }
    }
}

struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a config file: exit 0 when it is valid, non-zero listing every problem otherwise.")

    @OptionGroup var options: ConfigOption

    @Flag(name: .customLong("connect"), help: "Also connect to the HA database (ha:): report its schema version and the lease holder.")
    var connect = false

    func run() async throws {
        let settings: Settings
        do throws(ConfigError) {
            let loaded = try ConfigLoader.load(path: options.config)
            for warning in loaded.warnings { FileHandle.standardError.write(Data("\(options.config): \(warning)\n".utf8)) }
            settings = loaded.settings
            for warning in SecretChecks.warnings(settings, secrets: SecretResolver()) {
                FileHandle.standardError.write(Data("\(options.config): warning: \(warning)\n".utf8))
            }
            print("\(options.config): ok (\(settings.enabledExchanges.count) exchanges, \(settings.premium.rules.count) premium rules, "
                + "\(settings.fx.providers.count) FX providers, \(settings.ipo.sources.count) IPO sources, "
                + "\(settings.sinks.webhooks.count) webhooks, \(settings.sinks.email.count) email sinks)")
        } catch {
            for issue in error.issues { FileHandle.standardError.write(Data("\(options.config): \(issue)\n".utf8)) }
            FileHandle.standardError.write(Data("\(error.issues.count) problem(s) found\n".utf8))
            throw ExitCode(1)
        }
        guard connect else { return }
        let report = await HAConnectionCheck.run(settings, secrets: SecretResolver())
        for line in report.lines {
            if report.ok { print(line) } else { FileHandle.standardError.write(Data("\(options.config): \(line)\n".utf8)) }
        }
        if !report.ok { throw ExitCode(1) }
    }
}

struct Once: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Poll every enabled source once, print the alerts a first evaluation emits and a table of premiums and IPO states, then exit.")

    @OptionGroup var options: ConfigOption

    @Flag(name: .customLong("all"), help: "Also list closed IPO subscription windows.")
    var all = false

    func run() async throws {
        let logger = DaemonLogging.bootstrapDaemonLogging(level: options.logLevel)
        let result = await Daemon.once(configPath: options.config, logger: logger, includeClosed: all)
        print(result.report)
        if result.code != 0 { throw ExitCode(result.code) }
    }
}
