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
        let data = try Self.makeEncoder().encode(self)
        return String(decoding: data, as: UTF8.self)
    }
}

/// RFC 3339 formatting in UTC, shared by events, logs and the state store.
package enum Timestamp {
    package static func rfc3339(_ date: Date) -> String {
        var style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        if millis.truncatingRemainder(dividingBy: 1000) == 0 { style = Date.ISO8601FormatStyle(timeZone: .gmt) }
        return date.formatted(style)
    }

    package static func parseRFC3339(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).parse(text) { return date }
        return try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text)
    }
}
