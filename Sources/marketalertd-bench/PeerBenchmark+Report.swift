import Foundation

extension PeerBenchmark {
    static func report(_ r: Result) -> (String, [Verdict]) {
        func us(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }
        func pct(_ side: Side) -> String { String(format: "%.2f%%", r.window > 0 ? side.cpuSeconds / r.window * 100 : 0) }
        func switches(_ side: Side) -> String {
            side.switches.filter { $0.count > 0 }.map { String(format: "%@ %.2f", $0.thread, Double($0.count) / Double(max(r.frames, 1))) }
                .joined(separator: ", ")
        }
        var lines: [String] = []
        lines.append(String(format: "window %.0f s, %d frames to each client (%.0f/s)", r.window, r.frames, Double(r.frames) / max(r.window, 1))
            + (r.host.map { String(format: "; the host meanwhile: %d ticks of steal, load average %.2f at the end", $0.stealTicks, $0.loadAverage) } ?? ""))
        func row(_ name: String, _ side: Side) -> [String] {
            [name, String(format: "%.2f", side.cpuSeconds), pct(side), us(r.perFrame(side)), switches(side)]
        }
        lines.append(Report.table([
            ["client", "CPU s", "of a core", "per frame", "context switches per frame, by thread"],
            row("marketalertd", r.daemon), row("python peer", r.peer),
        ] + (r.floor.map { [row("C floor", $0)] } ?? [])))
        lines.append("peer: \(r.peerLine.isEmpty ? "(no report)" : r.peerLine), \(r.peerExit); daemon: binance premium sides on a stream quote \(r.daemonSides), \(r.daemonExit)")
        // "frames N markets M top T", as each client prints it at SIGTERM.
        func framesReported(_ line: String) -> Int { line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0 }
        if let floor = r.floor {
            let base = r.perFrame(floor)
            lines.append("floor: \(r.floorLine)")
            if framesReported(r.floorLine) == 0 {
                lines.append("the floor client took no frames: no floor figure")
            } else {
                lines.append(String(
                    format: "the host's floor (the C client: a wakeup and a read a frame) %@ a frame; above it, the daemon %@ (%.1f× the floor), the peer %@ (%.1f×)",
                    us(base), us(r.perFrame(r.daemon) - base), base > 0 ? r.perFrame(r.daemon) / base : 0,
                    us(r.perFrame(r.peer) - base), base > 0 ? r.perFrame(r.peer) / base : 0))
            }
        }
        let peerFrames = framesReported(r.peerLine)
        return (lines.joined(separator: "\n"), [
            Verdict(pass: peerFrames > 0 && r.daemonSides > 0, text: "peer run: both clients took the frames (peer \(peerFrames), daemon's binance sides \(r.daemonSides))"),
            Verdict(pass: r.ratio <= budget,
                    text: String(format: "daemon CPU per frame %@ against the Python peer's %@ on the same stream: %.2f× (budget %.2f×)",
                                 us(r.perFrame(r.daemon)), us(r.perFrame(r.peer)), r.ratio, budget)),
        ])
    }
}
