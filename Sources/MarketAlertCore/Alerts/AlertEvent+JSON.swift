import Foundation

extension AlertEvent {
    /// The one JSON encoder for events: RFC 3339 UTC times with a Z suffix (milliseconds when present),
    /// sorted keys so equal events give equal bytes.
    package static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.rfc3339(date))
        }
        return encoder
    }

    package static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parseRFC3339(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 time: \(text)")
            }
            return date
        }
        return decoder
    }

    /// One line of JSON, no trailing newline.
    package func jsonLine() throws -> String {
        String(decoding: try jsonData(), as: UTF8.self)
    }
}

/// RFC 3339 formatting in UTC, shared by events, logs and the state store.
package enum Timestamp {
    /// `2026-11-23T09:00:00Z`, or with milliseconds when there are any (`…:00.125Z`). The instant is rounded
    /// to the nearest millisecond once, as an integer, so the same `Date` always prints the same text
    /// whichever path prints it (x.9996 s is the next whole second, never the truncated one).
    package static func rfc3339(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
        let whole = seconds - (fraction < 0 ? 1 : 0)
        let ms = fraction < 0 ? fraction + 1000 : fraction
        let text = Date(timeIntervalSince1970: TimeInterval(whole)).formatted(wholeSeconds)
        guard ms != 0 else { return text }
        let digits = String(ms)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    private static let wholeSeconds = Date.ISO8601FormatStyle(timeZone: .gmt)

    package static func parseRFC3339(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).parse(text) { return date }
        return try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text)
    }
}
