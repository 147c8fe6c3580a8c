import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

#if canImport(Glibc)
import Glibc
#endif

/// Writes each event as one line to stdout (JSON or text), so `journalctl` or a pipe sees the alert at once.
///
/// In the daemon the line goes through a ``BackgroundWriter``: written at once when stdout can take it
/// without blocking, otherwise queued for the writer's own thread, whose outcome reaches the publisher as a
/// ``SinkWriteReport``. A stdout nobody reads therefore delays no stream, webhook or health check; its
/// events stay pending (delivered late, or at the next start) and are never lost.
package struct StdoutSink: QueuedAlertSink {
    /// A line on its way to stdout, with the event it says.
    package struct Line: Sendable {
        package var bytes: [UInt8]
        package var eventID: String
    }

    package let name = "stdout"
    private let format: StdoutFormat
    private let zones: [TimeZone]
    private let output: Output

    private enum Output: Sendable {
        case immediate(@Sendable (String) -> Bool)
        case queued(BackgroundWriter<Line>)
    }

    /// A sink that writes inline with `write` (a test or benchmark capturing lines); false: not written.
    package init(format: StdoutFormat, displayTimeZones: [String], write: @escaping @Sendable (String) -> Bool) {
        self.format = format
        self.zones = displayTimeZones.compactMap(TimeZone.init(identifier:))
        self.output = .immediate(write)
    }

    /// The daemon's sink: lines go through `writer` (``makeWriter(reports:)``, one for the process's life).
    package init(format: StdoutFormat, displayTimeZones: [String], writer: BackgroundWriter<Line>) {
        self.format = format
        self.zones = displayTimeZones.compactMap(TimeZone.init(identifier:))
        self.output = .queued(writer)
    }

    /// The process's stdout writer: up to 10,000 lines wait while stdout is blocked; a failed write is tried
    /// again after 0.5 s, doubling up to 30 s, until it succeeds; outcomes go to `reports`.
    /// `descriptor`: stdout, or a pipe in a test.
    package static func makeWriter(
        reports: SinkWriteReports, descriptor: Int32 = STDOUT_FILENO, policy: BackgroundWriter<Line>.Policy = .init(capacity: 10_000)
    ) -> BackgroundWriter<Line> {
        BackgroundWriter(
            name: "stdout", policy: policy,
            direct: { FileDescriptorWrite.direct(descriptor, $0.bytes) },
            write: { FileDescriptorWrite.blocking(descriptor, $0.bytes) },
            report: { report in
                switch report {
                case .written(let line): reports.send(.written(sink: "stdout", eventID: line.eventID))
                case .failed(let line, let reason):
                    reports.send(.failed(sink: "stdout", eventID: line.eventID, reason: "cannot write to stdout: \(reason)"))
                case .gaveUp: break  // never: the policy retries without limit
                }
            })
    }

    /// A failed write (a closed pipe, `/dev/full`) or a full queue is a failed delivery: the publisher logs
    /// it and retries, and the event is not marked delivered.
    package func submit(_ event: AlertEvent) throws -> SinkReceipt {
        let text = line(for: event)
        switch output {
        case .immediate(let write):
            guard write(text) else { throw SinkFailure(sink: name, message: "cannot write to stdout: \(String(cString: strerror(errno)))") }
            return .written
        case .queued(let writer):
            switch writer.submit(Line(bytes: FileDescriptorWrite.line(text), eventID: event.id)) {
            case .written: return .written
            case .queued: return .queued
            case .failed(let reason): throw SinkFailure(sink: name, message: "cannot write to stdout: \(reason)")
            case .refused: throw SinkFailure(sink: name, message: "stdout is blocked and \(writer.queuedCount) lines already wait")
            }
        }
    }

    package func line(for event: AlertEvent) -> String {
        switch format {
        case .json:
            return (try? event.jsonLine()) ?? "{\"error\":\"unencodable event \(event.id)\"}"
        case .text:
            return TextAlertFormatter.line(event, zones: zones)
        }
    }
}
