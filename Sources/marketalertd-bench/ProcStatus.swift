import Foundation

/// Memory figures of a running process from `/proc/<pid>/status` (kB there; bytes here).
struct ProcStatus: Sendable {
    /// Resident set size now.
    var rss: Int
    /// Peak resident set size ("high water mark").
    var hwm: Int
    var rssAnon: Int
    var rssFile: Int
    var threads: Int

    static func read(pid: Int32) -> ProcStatus? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
            if let value { fields[String(parts[0])] = value }
        }
        guard let rss = fields["VmRSS"], let hwm = fields["VmHWM"] else { return nil }
        return ProcStatus(
            rss: rss * 1024, hwm: hwm * 1024, rssAnon: (fields["RssAnon"] ?? 0) * 1024, rssFile: (fields["RssFile"] ?? 0) * 1024,
            threads: fields["Threads"] ?? 0)
    }
}

enum ByteText {
    static func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
}

/// CPU time a process has used so far, from `/proc/<pid>/stat` (utime + stime, in seconds).
enum ProcCPU {
    static func seconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name: state is field 3, utime 14 and stime 15 (1-based).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) / (ticks > 0 ? ticks : 100)
    }
}

/// What `/proc` tells of the host at one moment: the hypervisor's steal time so far (clock ticks over every
/// CPU) and the 1-minute load average. (The machine's own busy share is left out: `/proc/stat` samples it at
/// clock ticks, which miss most of a daemon's short wakeups, and read a fifth of the daemon's own figure.)
struct HostCPU {
    var steal: Double
    var loadAverage: Double

    static func read() -> HostCPU? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu "),
              let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
              let loadAverage = load.split(separator: " ").first.flatMap({ Double($0) })
        else { return nil }
        // user nice system idle iowait irq softirq steal …
        let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count >= 8 else { return nil }
        return HostCPU(steal: fields[7], loadAverage: loadAverage)
    }

    /// Between two readings: the steal ticks, and the load average at the end.
    static func window(from start: HostCPU?, to end: HostCPU?) -> (stealTicks: Int, loadAverage: Double)? {
        guard let start, let end else { return nil }
        return (Int(end.steal - start.steal), end.loadAverage)
    }
}
