import Foundation

/// Event ids: random UUIDs, lower-case (36 characters; the schema asks for at least 8). Unique per
/// notification and kept across retries, so receivers can dedupe on them.
package enum EventID {
    package static func make() -> String { UUID().uuidString.lowercased() }
}
