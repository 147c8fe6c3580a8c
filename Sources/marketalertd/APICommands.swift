import ArgumentParser
import Foundation
import MarketAlertCore
import MarketAlertIO

/// Where the running daemon is: `--url`, else `http.listen` from `--config`.
struct APIOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "Path to the YAML config file (for http.listen and http.token_env).")
    var config: String = "/etc/marketalertd/marketalertd.yaml"

    @Option(help: "The daemon's API, e.g. http://127.0.0.1:9108 (default: http.listen from the config).")
    var url: String?

    @Flag(help: "Print the API's JSON instead of a table.")
    var json = false

    func client() throws -> APIClient {
        do throws(APIEndpoint.Unresolved) {
            return APIClient(endpoint: try APIEndpoint.resolve(url: url, configPath: config, secrets: SecretResolver()))
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// Runs one API call: prints the JSON or `render(body)`; a refusal prints the API's error and exits 1.
func callAPI(_ options: APIOptions, expect: Int = 200, _ call: (APIClient) async throws -> APIClient.Answer, render: (Data) throws -> String) async throws {
    let answer: APIClient.Answer
    do { answer = try await call(try options.client()) } catch let error as APIClient.Unreachable {
        FileHandle.standardError.write(Data("marketalertd: \(error)\n".utf8))
        throw ExitCode(1)
    }
    guard answer.status == expect else {
        FileHandle.standardError.write(Data("marketalertd: \(TextTable.printable(answer.errorMessage)) (HTTP \(answer.status))\n".utf8))
        throw ExitCode(1)
    }
    print(options.json ? String(decoding: answer.body, as: UTF8.self).trimmingCharacters(in: .newlines) : try render(answer.body))
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the running daemon's state: sources, premiums, FX rates and IPO windows.")

    @OptionGroup var options: APIOptions

    func run() async throws {
        try await callAPI(options, { try await $0.get("/api/v1/status") }, render: CLIReport.status)
    }
}

struct Alerts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the keys firing now, and the silence holding each, if any.")

    @OptionGroup var options: APIOptions

    func run() async throws {
        try await callAPI(options, { try await $0.get("/api/v1/alerts") }, render: CLIReport.alerts)
    }
}

struct SilenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "silence", abstract: "Hold back notifications during maintenance (as Alertmanager's silences).",
        subcommands: [Add.self, List.self, Expire.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a silence; prints its id.",
            discussion: "Example: marketalertd silence add --match 'key=premium/kimchi/*' --for 2h --comment 'upbit maintenance'")

        @OptionGroup var options: APIOptions

        @Option(name: .customLong("match"), help: "NAME=VALUE, repeatable: key (a glob with *), kind, rule, asset, severity.")
        var matches: [String] = []

        @Option(name: .customLong("for"), help: "How long, e.g. 30m, 2h, 1d.")
        var duration: String?

        @Option(help: "Or until when (RFC 3339, e.g. 2026-03-10T12:00:00Z).")
        var until: String?

        @Option(help: "Why (required).")
        var comment: String

        @Option(help: "Who (default: $USER).")
        var author: String?

        func validate() throws {
            guard !matches.isEmpty else { throw ValidationError("give at least --match key=<glob>") }
            guard (duration == nil) != (until == nil) else { throw ValidationError("give exactly one of --for or --until") }
        }

        func run() async throws {
            let user = author ?? ProcessInfo.processInfo.environment["USER"] ?? "cli"
            let body = try CLIReport.silenceBody(matches: matches, duration: duration, until: until, comment: comment, author: user)
            try await callAPI(options, expect: 201, { try await $0.post("/api/v1/silences", json: body) }) { data in
                ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["id"] as? String ?? ""
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the silences (active, pending, and those ended in the last week).")

        @OptionGroup var options: APIOptions

        func run() async throws {
            try await callAPI(options, { try await $0.get("/api/v1/silences") }, render: CLIReport.silences)
        }
    }

    struct Expire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a silence now.")

        @OptionGroup var options: APIOptions

        @Argument(help: "The silence's id.")
        var id: String

        func run() async throws {
            let path = "/api/v1/silences/" + (id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? id)
            try await callAPI(options, { try await $0.delete(path) }) { _ in "expired \(id)" }
        }
    }
}
