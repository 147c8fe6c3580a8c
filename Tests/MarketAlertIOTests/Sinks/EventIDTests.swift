import Foundation
import MarketAlertKit
import Testing

/// Event ids are version 4 UUIDs in lower case, from `getrandom(2)` rather than Foundation's `UUID()` (which
/// opens `/dev/urandom` for each one).
@Suite struct EventIDTests {
    @Test func theBitsLandWhereAUUIDPutsThemWithVersionAndVariantSet() {
        #expect(EventID.text(high: 0, low: 0) == "00000000-0000-4000-8000-000000000000")
        #expect(EventID.text(high: .max, low: .max) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
        #expect(EventID.text(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210) == "01234567-89ab-4def-bedc-ba9876543210")
    }

    @Test func madeIdsParseAsRandomUUIDsAndDoNotRepeat() throws {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = EventID.make()
            let uuid = try #require(UUID(uuidString: id))
            #expect(uuid.uuidString.lowercased() == id)
            #expect(uuid.uuid.6 >> 4 == 4)  // version 4
            #expect(uuid.uuid.8 & 0b1100_0000 == 0b1000_0000)  // variant 10
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }
}
