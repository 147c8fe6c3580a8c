import Foundation
import MarketAlertCore
import Testing

@Suite struct SilenceRequestTests {
    let now = Date(timeIntervalSince1970: 1_773_108_000)

    func parse(_ json: String) -> Result<Silence, SilenceRequest.Problem> {
        SilenceRequest.parse(Data(json.utf8), now: now, id: "s1")
    }

    @Test func aDurationFromNow() throws {
        let silence = try parse(#"{"matchers":{"key":"premium/kimchi/*","severity":"warning","asset":"btc"},"duration":"2h","comment":"upbit maintenance","created_by":"ops"}"#).get()
        #expect(silence.id == "s1")
        #expect(silence.matchers == SilenceMatchers(key: "premium/kimchi/*", asset: "BTC", severity: .warning))
        #expect(silence.startsAt == now)
        #expect(silence.endsAt == now.addingTimeInterval(7200))
        #expect(silence.comment == "upbit maintenance")
        #expect(silence.createdBy == "ops")
        #expect(silence.isActive(at: now))
    }

    @Test func anEndTimeAndALaterStart() throws {
        let silence = try parse(#"{"matchers":{"key":"source/*"},"starts_at":"2026-03-10T03:00:00Z","ends_at":"2026-03-10T04:00:00Z","comment":"x"}"#).get()
        #expect(silence.startsAt == now.addingTimeInterval(3600))
        #expect(silence.endsAt == now.addingTimeInterval(7200))
        #expect(silence.createdBy == "api")
        #expect(!silence.isActive(at: now))
    }

    @Test(arguments: [
        ("", nil, "empty"),
        ("[1]", nil, "JSON object"),
        (#"{"duration":"2h","comment":"x"}"#, "matchers", "missing"),
        (#"{"matchers":"premium/*","duration":"2h","comment":"x"}"#, "matchers", "object"),
        (#"{"matchers":{},"duration":"2h","comment":"x"}"#, "matchers.key", "required"),
        (#"{"matchers":{"key":"a","colour":"red"},"duration":"2h","comment":"x"}"#, "matchers.colour", "unknown matcher"),
        (#"{"matchers":{"key":"a","kind":"weather"},"duration":"2h","comment":"x"}"#, "matchers.kind", "expected one of premium"),
        (#"{"matchers":{"key":"a","severity":"loud"},"duration":"2h","comment":"x"}"#, "matchers.severity", "expected one of info"),
        (#"{"matchers":{"key":7},"duration":"2h","comment":"x"}"#, "matchers.key", "expected a string"),
        (#"{"matchers":{"key":"a"},"comment":"x"}"#, "duration", "exactly one of duration or ends_at"),
        (#"{"matchers":{"key":"a"},"duration":"2h","ends_at":"2030-01-01T00:00:00Z","comment":"x"}"#, "ends_at", "exactly one"),
        (#"{"matchers":{"key":"a"},"duration":"soon","comment":"x"}"#, "duration", "positive duration"),
        (#"{"matchers":{"key":"a"},"duration":"0s","comment":"x"}"#, "duration", "positive duration"),
        (#"{"matchers":{"key":"a"},"duration":7200,"comment":"x"}"#, "duration", "expected a string"),
        (#"{"matchers":{"key":"a"},"duration":"400d","comment":"x"}"#, "duration", "at most 365 days"),
        (#"{"matchers":{"key":"a"},"ends_at":"yesterday","comment":"x"}"#, "ends_at", "RFC 3339"),
        (#"{"matchers":{"key":"a"},"ends_at":"2020-01-01T00:00:00Z","comment":"x"}"#, "ends_at", "in the future"),
        (#"{"matchers":{"key":"a"},"duration":"2h"}"#, "comment", "required"),
        (#"{"matchers":{"key":"a"},"duration":"2h","comment":"  "}"#, "comment", "required"),
        (#"{"matchers":{"key":"a"},"duration":"2h","comment":"a\nb"}"#, "comment", "one line"),
        (#"{"matchers":{"key":"a"},"duration":"2h","comment":"x","ttl":1}"#, "ttl", "unknown field"),
    ] as [(String, String?, String)])
    func badBodiesNameTheField(json: String, field: String?, message: String) {
        guard case .failure(let problem) = parse(json) else {
            Issue.record("accepted: \(json)")
            return
        }
        #expect(problem.field == field)
        #expect(problem.message.contains(message), "\(problem.message)")
    }
}
