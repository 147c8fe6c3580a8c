import Foundation
import Logging
import MarketAlertKit
import MarketAlertStorage

#if canImport(Glibc)
import Glibc
#endif

/// A plain text swift-log handler for runs outside the journal: one line per event on stderr,
/// `2026-03-10T02:47:00.123Z warning marketalertd.supervisor: source failed error=timeout source=bithumb`
/// (UTC timestamp, level, label, message, metadata sorted by key). Newlines and other control characters in
/// the message or values are escaped, so one event is always one line.
package struct StderrLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let now: @Sendable () -> Date
    private let write: @Sendable (String) -> Void

    /// - Parameters:
    ///   - now: the timestamp source (injected in tests).
    ///   - write: receives each line without its newline; writes to stderr by default.
    package init(
        label: String,
        logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        write: @escaping @Sendable (String) -> Void = { _ = LogWriters.stderr.submit(FileDescriptorWrite.line($0)) }
    ) {
        self.label = label
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
        self.now = now
        self.write = write
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        write(line(for: event))
    }

    package func line(for event: LogEvent) -> String {
        var line = "\(now().formatted(Self.timestampStyle)) \(event.level) \(Self.escape(label)): \(Self.escape(event.message.description))"
        let metadata = LogEventMetadata.effective(base: metadata, provider: metadataProvider, event: event)
        for (key, value) in LogEventMetadata.sorted(metadata) {
            line += " \(Self.escape(key))=\(Self.escape(value.description))"
        }
        return line
    }

    /// UTC with milliseconds: `2026-03-10T02:47:00.123Z`.
    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// Control characters as `\n`, `\r`, `\t` or `\u{…}`, so a value can never start a new log line.
    package static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default:
                if scalar.properties.generalCategory == .control {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }
}
