import Foundation

/// What the daemon runs (`--rss`, `--streams`, `--depth-streams`) share once the daemon is running: its
/// memory sampled once a second, its CPU and the host's over the second half, and its stop on SIGTERM.
enum DaemonSampling {
    struct Sampled {
        var samples: [ProcStatus]
        var stayedAlive: Bool
        /// CPU seconds the daemon used over the second half of the run, and that half's length.
        var steadyCPU: (seconds: Double, over: Double)
        var host: (stealTicks: Int, loadAverage: Double)?
    }

    /// Samples `process` once a second for `seconds` (printing a line every 10 s, every minute on long runs).
    static func sample(_ process: Process, seconds: Int) async throws -> Sampled {
        let pid = process.processIdentifier
        var samples: [ProcStatus] = []
        var cpuAtHalf: (cpu: Double, at: ContinuousClock.Instant)?
        var cpuAtEnd: (cpu: Double, at: ContinuousClock.Instant)?
        var hostAtHalf: HostCPU?
        var hostAtEnd: HostCPU?
        var stayedAlive = process.isRunning
        let clock = ContinuousClock()
        var next = clock.now
        for second in 1...seconds where stayedAlive {
            next += .seconds(1)
            try await clock.sleep(until: next)
            guard process.isRunning, let status = ProcStatus.read(pid: pid) else {
                stayedAlive = false
                break
            }
            samples.append(status)
            if let cpu = ProcCPU.seconds(pid: pid) {
                if second == max(1, seconds / 2) {
                    cpuAtHalf = (cpu, clock.now)
                    hostAtHalf = HostCPU.read()
                }
                cpuAtEnd = (cpu, clock.now)
                hostAtEnd = HostCPU.read()
            }
            if second % (seconds > 120 ? 60 : 10) == 0 || second == seconds {
                print("  t=\(second)s  VmRSS \(ByteText.mb(status.rss))  VmHWM \(ByteText.mb(status.hwm))  threads \(status.threads)")
            }
        }
        var steadyCPU = (seconds: 0.0, over: 0.0)
        if let start = cpuAtHalf, let end = cpuAtEnd {
            let elapsed = end.at - start.at
            steadyCPU = (end.cpu - start.cpu, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return Sampled(samples: samples, stayedAlive: stayedAlive, steadyCPU: steadyCPU, host: HostCPU.window(from: hostAtHalf, to: hostAtEnd))
    }

    /// Sends SIGTERM and waits up to 15 s (then SIGKILL): how the daemon ended, and whether it exited 0.
    static func stop(_ process: Process) async throws -> (status: String, clean: Bool) {
        guard process.isRunning else {
            return ("died during the run: \(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)", false)
        }
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        let stopDeadline = ContinuousClock.now + .seconds(15)
        while process.isRunning, ContinuousClock.now < stopDeadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(pid, SIGKILL)
            return ("still running 15 s after SIGTERM (killed)", false)
        }
        let reason = process.terminationReason == .exit ? "exit" : "signal"
        return ("\(reason) \(process.terminationStatus) after SIGTERM", process.terminationReason == .exit && process.terminationStatus == 0)
    }
}
