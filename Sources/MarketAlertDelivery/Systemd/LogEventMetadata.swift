import Logging
import MarketAlertKit
import MarketAlertStorage

/// The metadata a handler emits for one event: its own, then the provider's, then the call's (later wins),
/// plus `error` when the event carries one. Shared by ``JournalLogHandler`` and ``StderrLogHandler``.
package enum LogEventMetadata {
    package static func effective(
        base: Logger.Metadata, provider: Logger.MetadataProvider?, event: LogEvent
    ) -> Logger.Metadata {
        var metadata = base
        if let provided = provider?.get(), !provided.isEmpty {
            metadata.merge(provided) { _, provided in provided }
        }
        if let explicit = event.metadata, !explicit.isEmpty {
            metadata.merge(explicit) { _, explicit in explicit }
        }
        if let error = event.error { metadata["error"] = "\(error)" }
        return metadata
    }

    /// Metadata sorted by key, so output is deterministic.
    package static func sorted(_ metadata: Logger.Metadata) -> [(key: String, value: Logger.MetadataValue)] {
        metadata.sorted { $0.key < $1.key }
    }
}
