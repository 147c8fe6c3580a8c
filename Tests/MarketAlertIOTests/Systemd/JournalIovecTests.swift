import Testing

import MarketAlertIO

#if canImport(Glibc)
import Glibc
#endif

@Suite("Journal iovec packing")
struct JournalIovecTests {
    /// Reads back what each iovec points at, inside the scope that owns the memory.
    private func unpack(_ strings: [String]) -> [[UInt8]] {
        Journal.withIovecs(strings) { iovecs in
            iovecs.map { iov in
                guard let base = iov.iov_base else { return [] }
                return Array(UnsafeRawBufferPointer(start: base, count: iov.iov_len))
            }
        }
    }

    @Test("each iovec holds exactly one string's UTF-8 bytes")
    func packing() {
        let strings = ["MESSAGE=hello", "EMPTY=", "MULTI=line one\nline two", "UNICODE=김치 프리미엄 🙂", "NUL=a\u{0}b", ""]
        #expect(unpack(strings) == strings.map { Array($0.utf8) })
    }

    @Test("no strings gives no iovecs")
    func empty() {
        #expect(Journal.withIovecs([]) { $0.count } == 0)
        #expect(Journal.send([]) == -EINVAL)
    }

    @Test("many fields keep their order and contents")
    func many() {
        let strings = (0..<500).map { "FIELD_\($0)=\(String(repeating: "v", count: $0))" }
        #expect(unpack(strings) == strings.map { Array($0.utf8) })
    }
}
