import Logging
import MarketAlertKit
import MarketAlertStorage

/// A swift-log handler writing native journal entries:
/// `MESSAGE`, `PRIORITY` (from the level), `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`,
/// `MARKETALERTD_LOGGER` (the logger's label), `MARKETALERTD_MODULE` (swift-log's `source`) and every
/// metadata item as `MARKETALERTD_<SANITIZED_KEY>` (e.g. `sl-service` → `MARKETALERTD_SL_SERVICE`).
///
/// Use it only when stderr is connected to the journal (``LoggingSetup`` decides); otherwise entries could
/// vanish silently.
package struct JournalLogHandler: LogHandler {
    package static let metadataPrefix = "MARKETALERTD_"

    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let syslogIdentifier: String
    private let write: @Sendable ([(String, String)]) -> Void

    /// - Parameter write: the transport; ``Journal/send(_:)`` unless a test captures the fields.
    package init(
        label: String,
        logLevel: Logger.Level = .info,
        syslogIdentifier: String = "marketalertd",
        metadataProvider: Logger.MetadataProvider? = nil,
        write: @escaping @Sendable ([(String, String)]) -> Void = { _ = LogWriters.journal.submit($0) }
    ) {
        self.label = label
        self.logLevel = logLevel
        self.syslogIdentifier = syslogIdentifier
        self.metadataProvider = metadataProvider
        self.write = write
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        write(fields(for: event))
    }

    package func fields(for event: LogEvent) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("MESSAGE", event.message.description),
            ("PRIORITY", String(Self.priority(of: event.level))),
            ("SYSLOG_IDENTIFIER", syslogIdentifier),
            ("CODE_FILE", event.file),
            ("CODE_LINE", String(event.line)),
            ("CODE_FUNC", event.function),
            ("MARKETALERTD_LOGGER", label),
            ("MARKETALERTD_MODULE", event.source),
        ]
        let metadata = LogEventMetadata.effective(base: metadata, provider: metadataProvider, event: event)
        for (key, value) in LogEventMetadata.sorted(metadata) {
            fields.append((JournalFieldName.prefixed(Self.metadataPrefix, key), value.description))
        }
        return fields
    }

    /// syslog priority of a level: trace and debug 7, info 6, notice 5, warning 4, error 3, critical 2.
    package static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
