import Foundation

/// Event ids: random (version 4) UUIDs, lower-case (36 characters; the schema asks for at least 8). Unique per
/// notification and kept across retries, so receivers can dedupe on them.
///
/// The 128 bits come from `SystemRandomNumberGenerator` (`getrandom(2)`, a system call per 64 bits).
/// Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for every id, and an id is made on
/// the data path for every notification.
package enum EventID {
    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return text(high: generator.next(), low: generator.next())
    }

    /// The UUID of these 128 bits with its version (4) and variant (`10`) bits set, as
    /// `xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx` in lower-case hex.
    package static func text(high: UInt64, low: UInt64) -> String {
        let high = high & ~0xF000 | 0x4000
        let low = low & ~(0b11 << 62) | (0b10 << 62)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var at = 0
            func put(_ value: UInt64, from nibble: Int, count: Int) {
                for index in nibble..<(nibble + count) {
                    let digit = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0xF
                    buffer[at] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    at += 1
                }
            }
            func dash() {
                buffer[at] = UInt8(ascii: "-")
                at += 1
            }
            put(high, from: 0, count: 8)
            dash()
            put(high, from: 8, count: 4)
            dash()
            put(high, from: 12, count: 4)
            dash()
            put(low, from: 0, count: 4)
            dash()
            put(low, from: 4, count: 12)
            return at
        }
    }
}
