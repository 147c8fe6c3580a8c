import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The two writes a ``BackgroundWriter`` needs for a file descriptor (stdout, stderr): one that never blocks,
/// one that may. The descriptor's flags are never changed (it is shared with the parent: setting
/// `O_NONBLOCK` on a pipe would change it for every process writing to it).
package enum FileDescriptorWrite {
    /// Writes `bytes` only when that cannot block: `poll` says the descriptor takes data and the record fits
    /// in one atomic pipe write (`PIPE_BUF`, 4096 bytes on Linux; `POLLOUT` on a pipe means at least that much
    /// room). A longer record, or a descriptor that is not ready, is left for the writer's thread.
    package static func direct(_ descriptor: Int32, _ bytes: [UInt8]) -> DirectWrite {
        guard bytes.count <= Int(PIPE_BUF), isWritable(descriptor) else { return .wouldBlock }
        if let failure = blocking(descriptor, bytes) { return .failed(failure) }
        return .written
    }

    /// Writes all of `bytes` (retrying partial writes and `EINTR`); nil on success, otherwise `strerror`.
    package static func blocking(_ descriptor: Int32, _ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                if written < 0 { return String(cString: strerror(errno)) }
                if written == 0 { return String(cString: strerror(EIO)) }
                offset += written
            }
            return nil
        }
    }

    /// Whether a write to `descriptor` would not block now (`poll` with no wait).
    package static func isWritable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&entry, 1, 0)
        return ready > 0 && entry.revents & Int16(POLLOUT | POLLERR | POLLHUP) != 0
    }

    /// One line: the text's UTF-8 and a newline.
    package static func line(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
