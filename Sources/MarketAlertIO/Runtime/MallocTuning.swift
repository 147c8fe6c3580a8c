import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps glibc's allocator from holding on to memory the daemon no longer uses (measured by
/// `marketalertd-bench --rss`: about 2 MB less resident memory with 8 exchanges × 50 assets polled every second).
///
/// Each poll allocates a body of up to ~1.5 MB (a full ticker list) and frees it a moment later. glibc serves
/// blocks above `M_MMAP_THRESHOLD` (128 KiB) with `mmap` and returns them to the kernel on `free`, but after the
/// first such `free` it raises the threshold to the freed size (up to 32 MiB) and the trim threshold to twice
/// that, so later bodies come from the heap arenas, and every arena (up to 8 per core, one per thread that
/// allocated) keeps megabytes of freed memory resident. Fixing both thresholds at 128 KiB (which turns the
/// dynamic adjustment off) and capping the arenas at 2 keeps large bodies out of the arenas and lets freed
/// memory go back; the cost is an `mmap`/`munmap` pair per large body, a few per second.
///
/// An operator's own malloc settings (`GLIBC_TUNABLES=glibc.malloc.*`, `MALLOC_ARENA_MAX`,
/// `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`) win: nothing is changed then.
package enum MallocTuning {
    package static let mmapThreshold: Int32 = 128 * 1024
    package static let trimThreshold: Int32 = 128 * 1024
    package static let arenaMax: Int32 = 2

    /// Applied on first use, which must be first thing in `main`: glibc fixes its arena limit when the first
    /// threads allocate, so a later `M_ARENA_MAX` is ignored (measured: applied from `Daemon.run`, after
    /// ArgumentParser had started the concurrency threads, it saved nothing). The value says what was done.
    package static let atStartup: String = apply(environment: ProcessInfo.processInfo.environment)

    /// Sets the three parameters unless the operator set malloc options; returns what was done.
    @discardableResult
    package static func apply(environment: [String: String]) -> String {
        if let reason = operatorOverride(environment) { return "malloc: left as configured (\(reason))" }
        #if canImport(Glibc)
        // `mallopt` is declared in <malloc.h>, which the Glibc module does not import; libc exports it.
        // A nil handle is RTLD_DEFAULT: search the global scope (libc).
        guard let symbol = dlsym(nil, "mallopt") else { return "malloc: mallopt not available" }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        // Parameter numbers from <malloc.h> (stable glibc ABI).
        let mTrimThreshold: Int32 = -1, mMmapThreshold: Int32 = -3, mArenaMax: Int32 = -8
        let applied = [
            mallopt(mMmapThreshold, mmapThreshold), mallopt(mTrimThreshold, trimThreshold), mallopt(mArenaMax, arenaMax),
        ]
        guard applied.allSatisfy({ $0 == 1 }) else { return "malloc: mallopt refused a setting (\(applied))" }
        return "malloc: mmap_threshold \(mmapThreshold), trim_threshold \(trimThreshold), arena_max \(arenaMax)"
        #else
        return "malloc: not glibc, left as is"
        #endif
    }

    static func operatorOverride(_ environment: [String: String]) -> String? {
        if let tunables = environment["GLIBC_TUNABLES"], tunables.contains("glibc.malloc.") { return "GLIBC_TUNABLES" }
        return ["MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"].first { environment[$0] != nil }
    }
}
