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

/// The whole machine's CPU time from `/proc/stat` (clock ticks summed over every CPU): how busy the host
/// was while the daemon was measured, and how much time the hypervisor took away (steal).
struct HostCPU {
    var busy: Double
    var idle: Double
    var steal: Double

    static func read() -> HostCPU? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user and nice)
        let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count >= 8 else { return nil }
        return HostCPU(busy: fields[0] + fields[1] + fields[2] + fields[5] + fields[6], idle: fields[3] + fields[4], steal: fields[7])
    }

    /// Between two readings: the share of all CPUs' time that was busy, and the steal ticks.
    static func window(from start: HostCPU?, to end: HostCPU?) -> (busyPercent: Double, stealTicks: Int)? {
        guard let start, let end else { return nil }
        let busy = end.busy - start.busy
        let total = busy + (end.idle - start.idle) + (end.steal - start.steal)
        guard total > 0 else { return nil }
        return (busy / total * 100, Int(end.steal - start.steal))
    }
}
