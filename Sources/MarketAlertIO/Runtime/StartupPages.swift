import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Gives back the pages of the daemon's own executable that only start-up used.
///
/// The statically linked daemon maps a 35 MB code segment. Start-up (argument parsing, YAML, config
/// checks, the state store's migrations, TLS and HTTP set-up, ICU) touches about 22 MB of it, and those
/// pages stay mapped, counted in the resident set, though a streaming daemon then runs in under 4 MB of
/// code (`/proc/self/clear_refs` and `Referenced:` in smaps, measured over 25 s of 8 × 50 frames/s).
///
/// `release()` drops the mappings (`MADV_DONTNEED`) of the executable's read-only regions that hold no
/// private page. Nothing is lost: such a region holds exactly the file's bytes, the file cannot change
/// under a running executable (the kernel refuses writes to it, `ETXTBSY`; an upgrade replaces the file,
/// and a replaced file no longer matches the mapping's path), and the pages stay in the page cache, so a
/// page used again is mapped back by a minor fault, without I/O. Writable regions and any region with a
/// private (copy-on-write) page, such as the relocated RELRO data, are never touched.
package enum StartupPages {
    /// One mapping of `/proc/self/smaps`, with what the release decision needs.
    package struct Region: Equatable, Sendable {
        package var start: UInt
        package var end: UInt
        package var writable: Bool
        package var path: String
        package var residentKB: Int = 0
        package var anonymousKB: Int = 0
        package var lockedKB: Int = 0

        package init(start: UInt, end: UInt, writable: Bool, path: String, residentKB: Int = 0, anonymousKB: Int = 0, lockedKB: Int = 0) {
            self.start = start
            self.end = end
            self.writable = writable
            self.path = path
            self.residentKB = residentKB
            self.anonymousKB = anonymousKB
            self.lockedKB = lockedKB
        }
    }

    /// Releases the start-up pages; returns how many resident bytes were given back (0 where unsupported).
    @discardableResult
    package static func release() -> Int {
        #if os(Linux)
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              let smaps = try? String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
        else { return 0 }
        // Everything decided before the first page goes: code run after it (a region's destruction, the
        // string compares) would fault its pages back and keep them.
        let ranges = releasable(regions(smaps: smaps), executable: executable).compactMap { region in
            UnsafeMutableRawPointer(bitPattern: region.start).map { (address: $0, length: Int(region.end - region.start), bytes: region.residentKB * 1024) }
        }
        var released = 0
        for range in ranges where madvise(range.address, range.length, Int32(MADV_DONTNEED)) == 0 { released += range.bytes }
        return released
        #else
        return 0
        #endif
    }

    /// The regions `release` drops: the executable's, read-only, resident, with no private or locked page.
    package static func releasable(_ regions: [Region], executable: String) -> [Region] {
        regions.filter { $0.path == executable && !$0.writable && $0.anonymousKB == 0 && $0.lockedKB == 0 && $0.residentKB > 0 }
    }

    /// Parses `/proc/<pid>/smaps`: a header line per mapping (`start-end perms offset dev inode [path]`)
    /// followed by `Field: value kB` lines.
    package static func regions(smaps: String) -> [Region] {
        var regions: [Region] = []
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            if let region = header(line) {
                regions.append(region)
            } else if !regions.isEmpty, let colon = line.firstIndex(of: ":") {
                let value = Int(line[line.index(after: colon)...].split(separator: " ").first ?? "") ?? 0
                switch line[..<colon] {
                case "Rss": regions[regions.count - 1].residentKB = value
                case "Anonymous": regions[regions.count - 1].anonymousKB = value
                case "Locked": regions[regions.count - 1].lockedKB = value
                default: break
                }
            }
        }
        return regions
    }

    private static func header(_ line: Substring) -> Region? {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5, fields[1].count == 4 else { return nil }
        let range = fields[0].split(separator: "-")
        guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16), end > start else { return nil }
        let path = fields.count == 6 ? fields[5].trimmingCharacters(in: .whitespaces) : ""
        return Region(start: start, end: end, writable: fields[1].contains("w"), path: path)
    }
}
