/// Receives the outcome of every poll of every source (exchanges, FX providers, TWSE). The supervisor
/// implements it: it keeps `SourceHealth` per source and raises or resolves `source/<name>` alerts.
package protocol SourceHealthReporter: Sendable {
    /// `error == nil` is a success.
    func record(source: String, error: SourceError?) async
}
