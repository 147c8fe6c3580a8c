import Testing

import MarketAlertIO

@Suite("Journal field names")
struct JournalFieldNameTests {
    @Test(
        "sanitize maps to journald's field syntax",
        arguments: [
            ("sl-service", "SL_SERVICE"),
            ("hb.request.id", "HB_REQUEST_ID"),
            ("event_id", "EVENT_ID"),
            ("ALREADY_OK", "ALREADY_OK"),
            ("_secret", "SECRET"),
            ("__a", "A"),
            ("9lives", "F9LIVES"),
            ("_9", "F9"),
            ("café", "CAF_"),
            ("日本", "FIELD"),
            ("", "FIELD"),
            ("___", "FIELD"),
            ("a b\tc\nd=e", "A_B_C_D_E"),
        ])
    func sanitize(raw: String, expected: String) {
        #expect(JournalFieldName.sanitize(raw) == expected)
        #expect(JournalFieldName.isValid(JournalFieldName.sanitize(raw)))
    }

    @Test("names are capped at 64 characters, prefixed ones too")
    func cap() {
        let long = String(repeating: "x", count: 100)
        #expect(JournalFieldName.sanitize(long) == String(repeating: "X", count: 64))
        let prefixed = JournalFieldName.prefixed("MARKETALERTD_", long)
        #expect(prefixed.count == 64)
        #expect(prefixed.hasPrefix("MARKETALERTD_XXX"))
        #expect(JournalFieldName.isValid(prefixed))
        #expect(JournalFieldName.prefixed("MARKETALERTD_", "sl-error") == "MARKETALERTD_SL_ERROR")
    }

    @Test(
        "isValid follows journald's rules",
        arguments: [
            ("MESSAGE", true), ("CODE_LINE", true), ("A9", true), ("", false), ("_PID", false), ("9A", false),
            ("lower", false), ("WITH-DASH", false), ("ÄRGER", false), (String(repeating: "A", count: 64), true),
            (String(repeating: "A", count: 65), false),
        ])
    func validity(name: String, valid: Bool) {
        #expect(JournalFieldName.isValid(name) == valid)
    }

    @Test("every sanitized name is valid, whatever the input")
    func everyOutputValid() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ_09-.: \n\u{0}é日🙂=")
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...80, using: &generator)
            let raw = String((0..<length).map { _ in alphabet[Int.random(in: alphabet.indices, using: &generator)] })
            let name = JournalFieldName.sanitize(raw)
            #expect(JournalFieldName.isValid(name), "\(raw.debugDescription) → \(name)")
        }
    }
}
