import Foundation
import MarketAlertCore

/// Kraken v2 `book` (v3 books): `{"channel":"book","type":"snapshot"|"update","data":[{"symbol":"BTC/USD",
/// "bids":[{"price":45283.5,"qty":0.10000000},…],"asks":[…],"checksum":3310070434,"timestamp":"…"}]}`.
/// Kraken keeps the book at the subscribed depth: a level that falls out of it is not removed by a message,
/// the client cuts the book to the depth after each one, and a level that moves back in is sent again.
/// `qty` 0 removes a level. Every message carries the CRC-32 (unsigned) of the top 10 asks then the top 10
/// bids, each price and quantity as sent with the decimal point and leading zeros removed; Kraken sends both
/// as JSON numbers at full precision (trailing zeros kept), so the text is kept as sent (`TextBooks`).
package enum KrakenBook {
    /// Levels the checksum covers, per side.
    package static let checksumDepth = 10
    /// The depths Kraken accepts for `book`.
    package static let depths = [10, 25, 100, 500, 1000]

    /// The smallest depth Kraken accepts that covers `levels`.
    package static func depth(levels: Int) -> Int { depths.first { $0 >= levels } ?? 1000 }

    /// Applies one `book` message (`snapshot`: its `type` is `snapshot`) to the table's books, `depth` deep.
    package static func apply(
        _ json: JSONBytes, _ data: JSONBytes.Value, snapshot: Bool, depth: Int, receivedAt: Date, into table: inout StreamMarketTable
    ) -> StreamFrame {
        guard data.kind == .array, table.keepsBooks else { return data.kind == .array ? .ignored : .dropped(.malformed) }
        var books = TextBooks.adopt(from: &table, capacity: depth)
        defer { books.release(into: &table) }
        var outcome = StreamFrame.dropped(.malformed)
        var applied = false
        _ = json.walkElements(ofArrayAt: data.start) { row in
            guard row.kind == .object else { return .stop }
            var rowEnd: Int?
            let result = applyRow(json, row, snapshot: snapshot, depth: depth, receivedAt: receivedAt, books: &books, table: &table, end: &rowEnd)
            if result == .data { applied = true } else if !applied { outcome = result }
            return .walked(rowEnd ?? json.value(at: row.start)?.1)
        }
        return applied ? .data : outcome
    }

    private static func applyRow(
        _ json: JSONBytes, _ row: JSONBytes.Value, snapshot: Bool, depth: Int, receivedAt: Date,
        books: inout TextBooks, table: inout StreamMarketTable, end rowEnd: inout Int?
    ) -> StreamFrame {
        guard let symbol = json.member("symbol", ofObjectAt: row.start), symbol.kind == .string else { return .dropped(.malformed) }
        guard let index = table.index(of: json.slice(symbol)) else { return .unwatched }
        if snapshot { books.beginSnapshot(index) } else if !books.isLive(index) { return .ignored }  // awaiting a snapshot
        var time: Date?
        var sent: Int64?
        var usable = true
        // One scan per byte (`walkMembers`, `walkElements`): each side and level is read where it is walked.
        rowEnd = json.walkMembers(ofObjectAt: row.start) { start, end, value in
            if json.matches(start, end, "asks") || json.matches(start, end, "bids") {
                let bid = json.matches(start, end, "bids")
                guard value.kind == .array else { usable = false; return .stop }
                return .walked(json.walkElements(ofArrayAt: value.start) { level in
                    var price: JSONBytes.Value?
                    var qty: JSONBytes.Value?
                    let levelEnd = level.kind != .object ? nil : json.walkMembers(ofObjectAt: level.start) { start, end, field in
                        // The first of each, as `member(_:ofObjectAt:)` reads them.
                        if price == nil, json.matches(start, end, "price") { price = field }
                        else if qty == nil, json.matches(start, end, "qty") { qty = field }
                        return .next
                    }
                    guard let levelEnd, let price, let qty, books.set(index, bid: bid, json, price: price, size: qty, losesDropped: false) else {
                        usable = false
                        return .stop
                    }
                    return .walked(levelEnd)
                })
            } else if json.matches(start, end, "checksum") {
                sent = json.checksum(value)
            } else if json.matches(start, end, "timestamp") {
                time = KrakenTime.date(json.slice(value))
            }
            return .next
        }
        guard usable else {
            books.fail(index)
            TextBooks.lost(index, in: &table, fault: .invalidLevel)
            return .dropped(.malformed)
        }
        books.truncate(index, depth: depth)
        // Kraken v2 sends the checksum with the snapshot too; a snapshot without one is taken as the whole book.
        let verified = (snapshot && sent == nil)
            || sent.map { CRC32.matches($0, books.krakenChecksum(index, depth: checksumDepth)) } == true
        if !verified { books.fail(index) }
        // Kraken's snapshot may carry no timestamp: the receive time stands in.
        if let fault = books.publish(index, into: &table, at: time ?? receivedAt, verified: verified) {
            if fault == .checksum { return .data }  // the engine hears at once that the book is unusable
            books.fail(index)
            TextBooks.lost(index, in: &table, fault: fault)  // a crossed book: a change was lost
            return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
        }
        return .data
    }
}

/// Kraken v2's RFC 3339 UTC times (`2023-10-06T17:35:55.440295Z`), read without allocating.
package enum KrakenTime {
    package static func date(_ text: UnsafeRawBufferPointer) -> Date? {
        guard text.count >= 20, text[text.count - 1] == UInt8(ascii: "Z"), text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
              text[10] == UInt8(ascii: "T"), text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for offset in from..<(from + count) {
                let byte = text[offset]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
              let minute = number(14, 2), let second = number(17, 2), (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if text.count > 20 {
            guard text[19] == UInt8(ascii: "."), text.count - 21 <= 9, let digits = number(20, text.count - 21) else { return nil }
            fraction = Double(digits) / pow(10, Double(text.count - 21))
        }
        // Days since 1970-01-01 of the civil date (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86400 + hour * 3600 + minute * 60 + second) + fraction)
    }
}
