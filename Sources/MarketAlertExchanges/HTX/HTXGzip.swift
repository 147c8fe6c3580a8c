import CZlib
import Foundation

/// gzip as HTX uses it: every frame of its market WebSocket is one gzip member. Inflating goes through the
/// system zlib into memory the caller keeps between frames (`StreamMarketTable.scratch`): zlib's working
/// state comes from a bump allocator over the first `arenaBytes` of it and the text is inflated into the
/// rest, so once that memory has reached its working size no frame allocates.
package enum HTXGzip {
    /// zlib's inflate state (about 7 KB) and the 32 KB window it asks for when a member does not finish in
    /// one call (it never does here: `Z_FINISH` into room for the whole text), with room to spare.
    static let arenaBytes = 48 << 10
    /// The first room for inflated text; doubled (up to the caller's limit) when a frame needs more.
    static let initialOutputBytes = 16 << 10

    /// Whether `bytes` begin with gzip's magic number (no JSON text does: it starts with `{`, `[` or space).
    package static func isGzip(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Inflates the single gzip member `input` into `scratch` (grown as needed, never beyond `limit` bytes of
    /// text) and calls `body` with the text. Nil when `input` is not one whole, valid gzip member (bad
    /// header or data, wrong CRC or length, trailing bytes) or its text is larger than `limit`.
    package static func inflate<R>(
        _ input: UnsafeRawBufferPointer, scratch: inout [UInt8], limit: Int, _ body: (UnsafeRawBufferPointer) -> R
    ) -> R? {
        guard isGzip(input), let inputBase = input.baseAddress else { return nil }
        var room = max(initialOutputBytes, scratch.count - arenaBytes)
        while true {
            if scratch.count < arenaBytes + room { scratch = [UInt8](repeating: 0, count: arenaBytes + room) }
            let outcome: Outcome = scratch.withUnsafeMutableBytes { memory in
                guard let base = memory.baseAddress else { return .failed }
                var arena = Arena(base: base, used: 0, capacity: arenaBytes)
                return withUnsafeMutablePointer(to: &arena) { arena in
                    inflateOnce(
                        input: inputBase, count: input.count, arena: arena,
                        output: base + arenaBytes, room: memory.count - arenaBytes)
                }
            }
            switch outcome {
            case .failed:
                return nil
            case .needsRoom:
                guard room < limit else { return nil }
                room = min(room * 2, limit)
            case .inflated(let count):
                return scratch.withUnsafeBytes { memory in
                    body(UnsafeRawBufferPointer(rebasing: memory[arenaBytes..<(arenaBytes + count)]))
                }
            }
        }
    }

    private enum Outcome {
        case inflated(Int)
        case needsRoom
        case failed
    }

    /// zlib's allocator for one frame: bump allocation over caller memory, nothing freed one by one.
    private struct Arena {
        var base: UnsafeMutableRawPointer
        var used: Int
        var capacity: Int
    }

    private static let allocate: alloc_func = { opaque, items, size in
        guard let arena = opaque?.assumingMemoryBound(to: Arena.self) else { return nil }
        let (bytes, overflow) = Int(items).multipliedReportingOverflow(by: Int(size))
        let start = (arena.pointee.used + 15) & ~15
        guard !overflow, bytes <= arena.pointee.capacity - start else { return nil }
        arena.pointee.used = start + bytes
        return arena.pointee.base + start
    }

    private static let release: free_func = { _, _ in }

    private static func inflateOnce(
        input: UnsafeRawPointer, count: Int, arena: UnsafeMutablePointer<Arena>, output: UnsafeMutableRawPointer, room: Int
    ) -> Outcome {
        guard count <= Int(UInt32.max), room <= Int(UInt32.max) else { return .failed }
        var stream = z_stream()
        return withUnsafeMutablePointer(to: &stream) { stream in
            stream.pointee.zalloc = allocate
            stream.pointee.zfree = release
            stream.pointee.opaque = UnsafeMutableRawPointer(arena)
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(count)
            stream.pointee.next_out = output.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(room)
            // 16 + 15: a gzip wrapper (only), a 32 KB window.
            guard inflateInit2_(stream, 16 + 15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return .failed }
            let status = CZlib.inflate(stream, Z_FINISH)
            let produced = room - Int(stream.pointee.avail_out)
            let leftover = Int(stream.pointee.avail_in)
            let outOfRoom = stream.pointee.avail_out == 0
            inflateEnd(stream)
            switch status {
            case Z_STREAM_END where leftover == 0: return .inflated(produced)
            case Z_BUF_ERROR where outOfRoom, Z_OK where outOfRoom: return .needsRoom
            default: return .failed
            }
        }
    }

    /// `text` as one gzip member (HTX's peers, the test servers and the fixtures' checks).
    package static func compress(_ text: String) -> Data {
        var input = Array(text.utf8)
        var stream = z_stream()
        return withUnsafeMutablePointer(to: &stream) { stream in
            guard deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
            else { preconditionFailure("zlib: deflateInit2 failed") }
            defer { deflateEnd(stream) }
            var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(input.count))) + 32)
            let status = input.withUnsafeMutableBufferPointer { input in
                output.withUnsafeMutableBufferPointer { output in
                    stream.pointee.next_in = input.baseAddress
                    stream.pointee.avail_in = uInt(input.count)
                    stream.pointee.next_out = output.baseAddress
                    stream.pointee.avail_out = uInt(output.count)
                    return deflate(stream, Z_FINISH)
                }
            }
            precondition(status == Z_STREAM_END, "zlib: deflate did not finish")
            return Data(output[0..<Int(stream.pointee.total_out)])
        }
    }
}
