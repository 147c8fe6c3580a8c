import CSystemd
import Foundation
import MarketAlertKit
import MarketAlertStorage

#if canImport(Glibc)
import Glibc
#endif

/// Native systemd journal entries through `sd_journal_sendv(3)`.
///
/// The variadic `sd_journal_send` cannot be called from Swift, so every entry is a list of `NAME=value`
/// iovecs. Field names must already be valid (see ``JournalFieldName``); values may hold any bytes,
/// newlines included (libsystemd switches to the binary encoding for them).
///
/// - Important: A return value of 0 does not prove delivery: libsystemd drops entries silently when no
///   journald socket exists. Only reading the entry back (`journalctl`) proves it.
package enum Journal {
    /// The socket journald listens on for native entries.
    package static let socketPath = "/run/systemd/journal/socket"

    /// Whether a journald socket exists on this machine (entries are dropped silently otherwise).
    package static var isAvailable: Bool {
        var info = stat()
        return stat(socketPath, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    /// Sends one entry. Returns 0 or a negative errno (e.g. `-EINVAL` for an empty field list).
    @discardableResult
    package static func send(_ fields: [(String, String)]) -> Int32 {
        guard !fields.isEmpty else { return -EINVAL }
        return withIovecs(fields.map { "\($0.0)=\($0.1)" }) { iovecs in
            sd_journal_sendv(iovecs.baseAddress, Int32(iovecs.count))
        }
    }

    /// Packs `strings` into one contiguous byte buffer and calls `body` with one iovec per string.
    ///
    /// Every pointer handed to `body` lives inside this single `withUnsafeMutableBufferPointer` scope and
    /// must not escape `body`.
    package static func withIovecs<Result>(
        _ strings: [String], _ body: (UnsafeBufferPointer<iovec>) -> Result
    ) -> Result {
        var bytes: [UInt8] = []
        var ranges: [(offset: Int, count: Int)] = []
        ranges.reserveCapacity(strings.count)
        for string in strings {
            let utf8 = string.utf8
            ranges.append((bytes.count, utf8.count))
            bytes.append(contentsOf: utf8)
        }
        // One spare byte so the buffer always has a base address, even when every string is empty.
        bytes.append(0)
        return bytes.withUnsafeMutableBufferPointer { buffer -> Result in
            let base = UnsafeMutableRawPointer(buffer.baseAddress)
            let iovecs = ranges.map { range in
                iovec(iov_base: base.map { $0 + range.offset }, iov_len: range.count)
            }
            return iovecs.withUnsafeBufferPointer { body($0) }
        }
    }
}
