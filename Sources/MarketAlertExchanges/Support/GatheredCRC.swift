/// A CRC-32 over bytes gathered in a stack buffer and handed to zlib a kilobyte at a time: one `crc32` call per
/// level text (100 for OKX's 25 levels a side) cost more than the bytes. A kilobyte stays on the stack
/// (`withUnsafeTemporaryAllocation` moves larger buffers to the heap).
struct GatheredCRC {
    private var crc = CRC32()
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var length = 0
    private(set) var isEmpty = true

    static func checksum(_ body: (inout GatheredCRC) -> Void) -> UInt32 {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            var gathered = GatheredCRC(buffer: buffer)
            body(&gathered)
            gathered.flush()
            return gathered.crc.value
        }
    }

    private init(buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    mutating func append(_ byte: UInt8) {
        if length == buffer.count { flush() }
        buffer[length] = byte
        length += 1
        isEmpty = false
    }

    mutating func append(_ text: UnsafeRawBufferPointer) {
        for byte in text { append(byte) }
    }

    private mutating func flush() {
        crc.update(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<length]))
        length = 0
    }
}
