import Foundation
import Synchronization

final class FrameCounter: Sendable {
    let value = Atomic<Int>(0)
}

/// Context switches (voluntary + involuntary) of each thread of a process, by thread name, from
/// `/proc/<pid>/task/*/status`: how many times each thread woke up.
enum ThreadSwitches {
    static func read(pid: Int32) -> [String: Int] {
        let root = "/proc/\(pid)/task"
        var counts: [String: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            guard let status = try? String(contentsOfFile: "\(root)/\(task)/status", encoding: .utf8) else { continue }
            var name = "?"
            var switches = 0
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    switches += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            counts["\(name)#\(task)"] = switches
        }
        return counts
    }

    static func delta(_ start: [String: Int], _ end: [String: Int]) -> [(thread: String, count: Int)] {
        end.map { (thread: $0.key, count: $0.value - (start[$0.key] ?? 0)) }.sorted { $0.count > $1.count }
    }
}
