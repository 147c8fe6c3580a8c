import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Drops the daemon binary's pages from the page cache before a run, so every run's memory figure starts
/// from the same state: the binary read from disk by the daemon's own page faults, as after a boot.
///
/// The state matters on this kernel (likely because a fault maps the page-cache folio around it whole, and
/// the folios' sizes depend on how the file was read; not proven). With the binary read beforehand
/// (`cat binary >/dev/null`) the polling daemon's steady memory was 24.7–25.6 MB; with its cache dropped,
/// 22.0–23.1 MB for the same build, and the runs stopped moving between two modes 1.5–2 MB apart (round 11
/// in the README).
enum ColdBinary {
    /// Asks the kernel to drop the clean, unmapped cached pages of `path` (`POSIX_FADV_DONTNEED`); pages a
    /// running process maps stay. Returns what was done, for the report.
    static func evict(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "page cache of \(path) left as it is (open: errno \(errno))" }
        defer { close(fd) }
        let status = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
        return status == 0 ? "page cache of the daemon binary dropped before the run" : "page cache of \(path) left as it is (posix_fadvise: \(status))"
    }
}
