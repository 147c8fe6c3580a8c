import Foundation
import MarketAlertCore
import MarketAlertKit

/// The prices one frame gives for one market, each absent, valid or invalid, checked together before any
/// of them reaches the market table: one invalid price (zero, negative, NaN, infinite, garbage) or a crossed
/// book drops the whole frame, so a half-valid frame never becomes a quote.
package struct StreamQuoteFields {
    package enum Field {
        case absent
        case valid(Price)
        case invalid
        /// The frame says this side of the book is now empty (an order book delta removing the only level).
        case cleared

        package var price: Price? { if case .valid(let price) = self { return price } else { return nil } }
        package var isInvalid: Bool { if case .invalid = self { return true } else { return false } }
        package var isCleared: Bool { if case .cleared = self { return true } else { return false } }
    }

    package var bid = Field.absent
    package var ask = Field.absent
    package var last = Field.absent
    package var exchangeTime: Date?
    /// The frame's update id on the exchange's sequenced channel, if it has one (`StreamMarketTable.admitSequence`).
    package var sequence: Int64?
    /// The frame is a snapshot that starts the numbering over.
    package var sequenceRestarts = false

    /// Whether `value` is a zero quantity (`0`, `"0"`, `"0.000"`).
    package static func isZero(_ json: JSONBytes, _ value: JSONBytes.Value) -> Bool {
        guard value.kind == .string || value.kind == .number, value.end > value.start else { return false }
        var sawZero = false
        for index in value.start..<value.end {
            switch json.bytes[index] {
            case UInt8(ascii: "0"): sawZero = true
            case UInt8(ascii: "."): continue
            default: return false
            }
        }
        return sawZero
    }

    /// Reads a price field: missing, `null` and `""` (an empty book side) are absent.
    package static func field(_ json: JSONBytes, _ value: JSONBytes.Value?) -> Field {
        guard let value else { return .absent }
        if json.isNull(value) { return .absent }
        if value.kind == .string, value.start == value.end { return .absent }
        return json.price(value).map(Field.valid) ?? .invalid
    }
}

extension StreamMarketTable {
    /// Applies `fields` to the market whose id is `market`, or says why not.
    package mutating func apply(_ fields: StreamQuoteFields, market: UnsafeRawBufferPointer) -> StreamFrame {
        if fields.bid.isInvalid || fields.ask.isInvalid || fields.last.isInvalid { return .dropped(.invalidPrice) }
        let bid = fields.bid.price
        let ask = fields.ask.price
        let last = fields.last.price
        let clears = fields.bid.isCleared || fields.ask.isCleared
        guard bid != nil || ask != nil || last != nil || clears else { return .dropped(.invalidPrice) }
        if let bid, let ask, bid.value > ask.value { return .dropped(.crossedBook) }
        guard let index = index(of: market) else { return .unwatched }
        // A one-sided update must not cross the side the table already holds.
        if let bid, ask == nil, !fields.ask.isCleared, let held = entries[index].ask, bid.value > held.value { return .dropped(.crossedBook) }
        if let ask, bid == nil, !fields.bid.isCleared, let held = entries[index].bid, held.value > ask.value { return .dropped(.crossedBook) }
        if let sequence = fields.sequence, !admitSequence(sequence, restart: fields.sequenceRestarts, at: index) {
            return .dropped(.outOfOrder)
        }
        if clears { clear(index, bid: fields.bid.isCleared, ask: fields.ask.isCleared) }
        apply(index, bid: bid, ask: ask, last: last, exchangeTime: fields.exchangeTime)
        return .data
    }
}

extension JSONBytes {
    /// The value of member `name` of the object at `index` (first level only).
    package func member(_ name: StaticString, ofObjectAt index: Int) -> Value? {
        var found: Value?
        members(ofObjectAt: index) { start, end, value in
            if matches(start, end, name) { found = value }
            return found == nil
        }
        return found
    }

    /// Milliseconds since 1970 (a number or a digit string) as a date.
    package func millis(_ value: Value?) -> Date? {
        guard let value, let millis = integer(value), millis > 0 else { return nil }
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// Walks the whole frame: the root object's index, or nil if the frame is not exactly one JSON object.
    package func rootObject() -> Int? {
        guard let root, bytes[root] == UInt8(ascii: "{"), let (_, end) = value(at: root), skipSpace(end) == bytes.count else { return nil }
        return root
    }

    /// Hands `body` every member of the root object (`body` returns true to go on), checking the whole frame
    /// in the same scan: false when the frame is not exactly one well-formed JSON object, and what `body` saw
    /// must then be dropped. A stream decoder reads its frame so once; `rootObject()` and then `members`
    /// scanned every byte twice (a third of decoding a book diff).
    package func rootMembers(_ body: (Int, Int, Value) -> Bool) -> Bool {
        guard let root, bytes[root] == UInt8(ascii: "{"), let end = members(ofObjectAt: root, body) else { return false }
        return skipSpace(end) == bytes.count
    }

    /// `rootMembers` for a decoder that walks some containers itself (`walkMembers`' `Step`: a nested object
    /// read where the walk meets it). False when the frame is not exactly one well-formed JSON object.
    package func rootWalk(_ body: (Int, Int, Value) -> Step) -> Bool {
        guard let root, bytes[root] == UInt8(ascii: "{"), let end = walkMembers(ofObjectAt: root, body) else { return false }
        return skipSpace(end) == bytes.count
    }
}
