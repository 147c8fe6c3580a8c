@testable import MarketAlertIO
import Testing

@Suite struct MallocTuningTests {
    @Test func anOperatorsMallocSettingsWin() {
        #expect(MallocTuning.operatorOverride(["GLIBC_TUNABLES": "glibc.malloc.arena_max=4"]) == "GLIBC_TUNABLES")
        #expect(MallocTuning.operatorOverride(["MALLOC_ARENA_MAX": "1"]) == "MALLOC_ARENA_MAX")
        #expect(MallocTuning.operatorOverride(["MALLOC_MMAP_THRESHOLD_": "65536"]) == "MALLOC_MMAP_THRESHOLD_")
        #expect(MallocTuning.apply(environment: ["MALLOC_TRIM_THRESHOLD_": "0"]) == "malloc: left as configured (MALLOC_TRIM_THRESHOLD_)")
    }

    @Test func otherTunablesDoNotCount() {
        #expect(MallocTuning.operatorOverride(["GLIBC_TUNABLES": "glibc.pthread.rseq=0", "PATH": "/usr/bin"]) == nil)
        #expect(MallocTuning.operatorOverride([:]) == nil)
    }

    /// glibc accepts all three settings (mallopt returns 1 for each), so the daemon's log line says so.
    @Test func glibcAcceptsTheSettings() {
        #expect(MallocTuning.apply(environment: [:]) == "malloc: mmap_threshold 131072, trim_threshold 131072, arena_max 2")
    }
}
