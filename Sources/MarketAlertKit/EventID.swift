import Foundation

/// Event ids: random (version 4) UUIDs, lower-case (36 characters; the schema asks for at least 8). Unique per
/// notification and kept across retries, so receivers can dedupe on them.
///
/// The 128 bits come from `SystemRandomNumberGenerator` (`getrandom(2)`, a system call per 64 bits):
/// Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for every id, and an id is made on
/// the data path for every notification.
package enum EventID {
    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return text(high: generator.next(), low: generator.next())
    }

    /// The UUID of these 128 bits (`high` first, big-endian) with its version (4) and variant (`10`) bits
    /// set, written by Foundation (`UUID(uuid:)` takes no randomness of its own) in lower case.
    package static func text(high: UInt64, low: UInt64) -> String {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: high.bigEndian, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        bytes.6 = bytes.6 & 0x0F | 0x40
        bytes.8 = bytes.8 & 0x3F | 0x80
        return UUID(uuid: bytes).uuidString.lowercased()
    }
}
