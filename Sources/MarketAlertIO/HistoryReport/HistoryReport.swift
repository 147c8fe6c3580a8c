import Foundation
import Logging
import MarketAlertCore

/// `marketalertd history`: samples of one rule and asset read from the state store (read-only, beside the
/// running daemon), summarised per local day in each display zone (min / max / last), and the `--plot` chart.
/// Samples are UTC instants; they are grouped into days only here, per zone, through Foundation calendars.
package enum HistoryReport {
    package struct Problem: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// One local day of samples.
    package struct Day: Sendable, Equatable {
        package var day: String
        package var minPct: Double
        package var maxPct: Double
        package var lastPct: Double
        package var samples: Int
    }

    /// Groups samples (any order) by their day in `zone`.
    package static func days(_ samples: [HistorySample], zone: TimeZone) -> [Day] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var days: [String: (day: Day, lastAt: Date)] = [:]
        for sample in samples {
            let c = calendar.dateComponents([.year, .month, .day], from: sample.at)
            let key = String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
            if var entry = days[key] {
                entry.day.minPct = min(entry.day.minPct, sample.minPct)
                entry.day.maxPct = max(entry.day.maxPct, sample.maxPct)
                entry.day.samples += 1
                if sample.at >= entry.lastAt { entry.day.lastPct = sample.lastPct; entry.lastAt = sample.at }
                days[key] = entry
            } else {
                days[key] = (Day(day: key, minPct: sample.minPct, maxPct: sample.maxPct, lastPct: sample.lastPct, samples: 1), sample.at)
            }
        }
        return days.values.map { $0.day }.sorted { $0.day < $1.day }
    }

    /// The text report: one table per display zone (IANA names, as configured).
    package static func text(_ samples: [HistorySample], rule: String, asset: String, since: Date, until: Date, zones names: [String]) -> String {
        let zones = names.compactMap { name in TimeZone(identifier: name).map { (name, $0) } }
        var out = "premium/\(rule)/\(asset): \(samples.count) samples from \(Timestamp.rfc3339(since)) to \(Timestamp.rfc3339(until))"
        guard !samples.isEmpty else { return out + "\n(no history in this period)" }
        for (name, zone) in zones {
            var table = TextTable(["Day (\(name))", "Min %", "Max %", "Last %", "Samples"])
            for day in days(samples, zone: zone) {
                table.add([day.day, NumberText.percent(day.minPct), NumberText.percent(day.maxPct), NumberText.percent(day.lastPct), String(day.samples)])
            }
            out += "\n\n" + table.render()
        }
        return out
    }

    /// Reads the samples of `rule`/`asset` over the last `since` from the store in the config's state
    /// directory, and writes the chart to `plot` when given. Returns the text report.
    package static func run(
        settings: Settings, rule: String, asset: String, since: Duration, plot: String?, now: Date, environment: [String: String]
    ) async throws -> String {
        guard let configured = settings.premium.rules.first(where: { $0.name == rule }) else {
            throw Problem("no premium rule named \"\(rule)\" (rules: \(settings.premium.rules.map(\.name).joined(separator: ", ")))")
        }
        let asset = asset.uppercased()
        // `assets: all`: the assets are the exchanges' lists as the daemon read them, unknown here; any asset the
        // rule does not exclude may have history.
        if configured.selection.all {
            guard !configured.selection.excludeAssets.contains(asset) else {
                throw Problem("rule \(rule) excludes asset \(asset) (exclude_assets)")
            }
        } else if !configured.assets.contains(asset) {
            throw Problem("rule \(rule) has no asset \(asset) (assets: \(configured.assets.joined(separator: ", ")))")
        }
        let store = try openStore(settings, environment: environment)
        let from = now.addingTimeInterval(-since.seconds)
        let unreadable = UnreadableHistoryRows.total
        let samples = try await store.read { try await $0.samples(rule: rule, asset: asset, since: from, until: now) }
        let skipped = UnreadableHistoryRows.total - unreadable
        let zones = settings.displayTimeZones.compactMap(TimeZone.init(identifier:))
        var report = text(samples, rule: rule, asset: asset, since: from, until: now, zones: zones.isEmpty ? ["UTC"] : settings.displayTimeZones)
        if settings.history == nil { report += "\n\nnote: the config has no history: section; the daemon records no new samples" }
        if skipped > 0 { report += "\n\nnote: \(skipped) stored row(s) could not be read (a corrupt value) and were skipped" }
        if let plot {
            let svg = HistoryChart.plot(samples, rule: configured, asset: asset, since: from, until: now, timeZone: zones.first ?? .gmt,
                zoneName: settings.displayTimeZones.first)
            try Data(svg.utf8).write(to: URL(fileURLWithPath: plot))
            report += "\n\nchart written to \(plot)"
        }
        return report
    }

    /// Where the samples are: PostgreSQL with `ha:` (read without a lease; a standby's view is the
    /// group's), else the SQLite store in the state directory, opened read-only.
    static func openStore(_ settings: Settings, environment: [String: String]) throws -> HistoryReader {
        if let ha = settings.ha {
            let url = try HADatabaseURL.resolve(ha, secrets: SecretResolver(environment: environment))
            let store = try PostgresStore(url: url, instance: ha.instance ?? HARole.defaultInstanceName(), logger: Logger(label: "history"))
            return HistoryReader(store: store, pool: store) {}
        }
        let directory = Daemon.resolveStateDirectory(settings, environment: environment)
        let path = URL(fileURLWithPath: directory).appendingPathComponent("state.sqlite").path
        guard FileManager.default.fileExists(atPath: path) else { throw Problem("no state store at \(path) (has the daemon run with this config?)") }
        return HistoryReader(store: try SQLiteStore.openReadOnly(directory: directory)) {}
    }

    /// A history store opened for one read, closed after it.
    struct HistoryReader {
        let store: any HistoryStore
        /// The PostgreSQL store whose connection pool runs for the read (nil: SQLite).
        var pool: PostgresStore? = nil
        let close: @Sendable () async -> Void

        func read<T>(_ body: (any HistoryStore) async throws -> T) async throws -> T {
            if let pool { return try await pool.withRunning { _ in try await body(store) } }
            do {
                let value = try await body(store)
                await close()
                return value
            } catch {
                await close()
                throw error
            }
        }
    }
}
