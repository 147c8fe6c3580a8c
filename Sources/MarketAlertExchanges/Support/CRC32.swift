import CZlib

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320: zlib's, Python's `zlib.crc32`), the checksum OKX,
/// Bitget and Kraken put on their order books. It runs over bytes fed piece by piece (each level's price
/// and size text as the exchange sent them, the separators between them), so a book's checksum needs no
/// string built for it: zlib's `crc32` (already linked for HTX's gzip) continues from the running value,
/// and nothing is allocated.
package struct CRC32: Sendable, Equatable {
    package private(set) var value: UInt32 = 0

    package init() {}

    /// Continues over `bytes`.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        value = UInt32(truncatingIfNeeded: crc32(uLong(value), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    /// Continues over one byte (a separator): one step of zlib's own table, no call into the library.
    package mutating func update(byte: UInt8) {
        let crc = ~value
        value = ~(UInt32(truncatingIfNeeded: Self.table[Int((crc ^ UInt32(byte)) & 0xFF)]) ^ (crc >> 8))
    }

    /// zlib's 256-entry table (static in the library).
    private static var table: UnsafePointer<z_crc_t> { get_crc_table() }

    /// The checksum of `bytes` in one go.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// OKX and Bitget send the checksum as a signed 32-bit integer, Kraken as an unsigned one: either,
    /// read as an integer, matches when its low 32 bits are the checksum.
    package static func matches(_ sent: Int64, _ computed: UInt32) -> Bool {
        UInt32(truncatingIfNeeded: sent) == computed && sent >= Int64(Int32.min) && sent <= Int64(UInt32.max)
    }
}
