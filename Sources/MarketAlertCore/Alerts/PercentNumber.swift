import Foundation

/// A percentage field of an event (`pct`, `threshold_pct`, `change_pct`): a `Double` in Swift, written to
/// JSON as ``NumberText/pct(_:)`` (at most 6 decimals, the shortest decimal: `3.896104`, never
/// `3.8961040000000002`). Use it on every new percentage field so the rule cannot be forgotten.
@propertyWrapper
package struct PercentNumber: Sendable, Equatable, Codable {
    package var wrappedValue: Double

    package init(wrappedValue: Double) { self.wrappedValue = wrappedValue }

    package init(from decoder: any Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode(Double.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(NumberText.pct(wrappedValue))
    }
}

/// ``PercentNumber`` for an optional field: absent from the JSON when nil (never `null`).
@propertyWrapper
package struct OptionalPercentNumber: Sendable, Equatable, Codable {
    package var wrappedValue: Double?

    package init(wrappedValue: Double?) { self.wrappedValue = wrappedValue }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Double.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(NumberText.pct(wrappedValue)) } else { try container.encodeNil() }
    }
}

extension KeyedEncodingContainer {
    /// Leaves the key out when the percentage is nil (the synthesized `Encodable` picks this overload).
    package mutating func encode(_ value: OptionalPercentNumber, forKey key: Key) throws {
        if let number = value.wrappedValue { try encode(NumberText.pct(number), forKey: key) }
    }
}

extension KeyedDecodingContainer {
    /// A missing key or `null` is nil (the synthesized `Decodable` picks this overload).
    package func decode(_ type: OptionalPercentNumber.Type, forKey key: Key) throws -> OptionalPercentNumber {
        OptionalPercentNumber(wrappedValue: try decodeIfPresent(Double.self, forKey: key))
    }
}
