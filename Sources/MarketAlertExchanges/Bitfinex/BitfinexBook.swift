import Foundation
import MarketAlertCore

/// Bitfinex's `book` channel at precision P0 (v3 books): `{"event":"subscribe","channel":"book","symbol":…,
/// "prec":"P0","freq":"F0","len":"25"}` answers with a snapshot `[N,[[PRICE,COUNT,AMOUNT],…]]` (bids first,
/// best first, then asks), then one change per message `[N,[PRICE,COUNT,AMOUNT]]`: COUNT > 0 sets the level
/// (AMOUNT > 0 a bid, < 0 an ask, its size |AMOUNT|), COUNT = 0 removes it (AMOUNT 1 from the bids, -1 from
/// the asks). Bitfinex keeps the client at `len` levels a side: it sends the level that moves into them.
///
/// With the checksum flag (`{"event":"conf","flags":131072}`) Bitfinex sends `[N,"cs",CHECKSUM]`: the CRC-32 of
/// the top 25 bids and asks interleaved (`bid price:bid amount:ask price:ask amount:…`, a side that has run
/// out skipped), each number's text as sent (asks' amounts negative), as a signed 32-bit integer (Bitfinex's
/// "WebSocket Checksum" page). Levels are kept as that text (`TextBooks`); a mismatch throws the book away.
package enum BitfinexBook {
    /// `conf` flag asking for checksum messages.
    package static let checksumFlag = 131_072
    /// Levels per side the checksum covers.
    package static let checksumDepth = 25

    /// The P0 `len` for books `levels` deep: the smallest Bitfinex offers that covers them (25, 100, 250);
    /// never 1, which the checksum's 25 levels would not fit.
    package static func length(levels: Int) -> Int { [25, 100, 250].first { $0 >= levels } ?? 250 }

    /// The key a book channel is bound under in the market table (`bindChannel`): ticker channels keep their
    /// number, book channels its complement, so one frame's number finds which of the two it is.
    package static func channelKey(_ channel: Int64) -> Int64 { ~channel }

    /// A snapshot or a change for entry `index`, from a connection that may or may not be the book's.
    static func apply(
        _ json: JSONBytes, _ payload: JSONBytes.Value, index: Int, length: Int, receivedAt: Date, into table: inout StreamMarketTable
    ) -> StreamFrame {
        var first: JSONBytes.Value?
        json.elements(ofArrayAt: payload.start) { value in
            first = value
            return false
        }
        let snapshot = first == nil || first?.kind == .array
        // Changes come from the connection whose snapshot built the book; a connection being replaced may
        // still send some, which would land on the new connection's book.
        if !snapshot, table.entries[index].bookConnection != table.connection { return .ignored }
        var books = TextBooks.adopt(from: &table, capacity: length)
        defer { books.release(into: &table) }
        var usable = true
        if snapshot {
            books.beginSnapshot(index)
            table.noteBookChange(index)
            json.elements(ofArrayAt: payload.start) { level in
                usable = level.kind == .array && setLevel(json, level, index, snapshot: true, books: &books)
                return usable
            }
        } else {
            guard books.isLive(index) else { return .ignored }  // awaiting a snapshot after a failure
            usable = setLevel(json, payload, index, snapshot: false, books: &books)
        }
        guard usable else {
            books.fail(index)
            TextBooks.lost(index, in: &table, fault: .invalidLevel)
            return .dropped(.malformed)
        }
        // Bitfinex's book messages carry no time of their own (without the timestamp flag).
        if let fault = books.publish(index, into: &table, at: receivedAt, verified: true) {
            books.fail(index)
            TextBooks.lost(index, in: &table, fault: fault)  // a crossed book: a change was lost
            return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
        }
        return .data
    }

    /// `[PRICE,COUNT,AMOUNT]`: false when it is not three usable numbers.
    private static func setLevel(_ json: JSONBytes, _ level: JSONBytes.Value, _ index: Int, snapshot: Bool, books: inout TextBooks) -> Bool {
        var parts: (price: JSONBytes.Value?, count: JSONBytes.Value?, amount: JSONBytes.Value?)
        var position = 0
        json.elements(ofArrayAt: level.start) { value in
            switch position {
            case 0: parts.price = value
            case 1: parts.count = value
            case 2: parts.amount = value
            default: break
            }
            position += 1
            return true
        }
        guard position == 3, let price = parts.price, let count = parts.count.flatMap(json.integer), let amount = parts.amount,
              price.kind == .number, amount.kind == .number, amount.end > amount.start, let priceValue = json.quantity(price)
        else { return false }
        let negative = json.bytes[amount.start] == UInt8(ascii: "-")
        let magnitude = JSONBytes.Value(start: amount.start + (negative ? 1 : 0), end: amount.end, kind: .number)
        guard let size = json.quantity(magnitude), size > 0 else { return false }
        if count == 0 {
            // A removal says its side by an amount of 1 (bids) or -1 (asks); a snapshot never removes.
            guard !snapshot, size == 1 else { return false }
            return books.set(
                index, bid: !negative, price: priceValue, size: 0, priceText: json.slice(price), sizeText: json.slice(amount), losesDropped: false)
        }
        return books.set(
            index, bid: !negative, price: priceValue, size: size, priceText: json.slice(price), sizeText: json.slice(amount), losesDropped: false)
    }

    /// `[N,"cs",CHECKSUM]` for entry `index`: the book is checked against it; a mismatch throws it away (the
    /// engine hears at once) and asks for a fresh one (counted as `checksum`).
    static func check(
        _ json: JSONBytes, _ checksum: JSONBytes.Value?, index: Int, length: Int, into table: inout StreamMarketTable
    ) -> StreamFrame {
        guard let sent = checksum.flatMap(json.checksum) else { return .dropped(.malformed) }
        guard table.entries[index].bookConnection == table.connection else { return .heartbeat }
        var books = TextBooks.adopt(from: &table, capacity: length)
        defer { books.release(into: &table) }
        guard books.isLive(index) else { return .heartbeat }  // nothing to check until the next snapshot
        if CRC32.matches(sent, books.interleavedChecksum(index, depth: checksumDepth)) { return .heartbeat }
        books.fail(index)
        TextBooks.lost(index, in: &table, fault: .checksum)
        return .data
    }
}
