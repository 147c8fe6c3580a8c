import Foundation
import MarketAlertCore

/// KuCoin v3 books (`keepingBooks`): `/market/level2:BTC-USDT,…` (at most 100 pairs a request) beside
/// `/market/ticker`, whose best bid and ask are then left to the book. Each message is
/// `{"type":"message","topic":"/market/level2:BTC-USDT","subject":"trade.l2update","data":{"sequenceStart":N,
/// "sequenceEnd":M,"symbol":"BTC-USDT","changes":{"asks":[[price,size,sequence],…],"bids":[…]},"time":ms}}`:
/// size `"0"` removes a level, price `"0"` only moves the sequence. KuCoin's calibration procedure: keep the
/// messages, fetch a snapshot over REST (the public `/api/v1/market/orderbook/level2_100?symbol=…`,
/// `{"code":"200000","data":{"time":ms,"sequence":"N","bids":[[price,size],…],"asks":[…]}}`), drop what the
/// snapshot's `sequence` already holds, then each message must continue the previous one
/// (`sequenceStart` = last `sequenceEnd + 1`). A gap throws the book away and a fresh snapshot is fetched
/// (`BookSequence`, as Binance's rule with `U`/`u` = `sequenceStart`/`sequenceEnd`); within the message that
/// straddles the snapshot, changes numbered at or below its `sequence` are skipped.
extension KuCoinStream {
    package func keepingBooks(levels: Int) -> KuCoinStream? {
        var configured = self
        configured.bookLevels = max(1, levels)
        return configured
    }

    package static let snapshotPath = "/api/v1/market/orderbook/level2_100"

    package var bookResync: StreamBookResync {
        .restSnapshot(path: { market in "\(Self.snapshotPath)?symbol=\(market)" })
    }

    /// The REST snapshot seeds entry `index`'s book; the messages buffered meanwhile are then applied by the
    /// sequence rule. False when the body is not a snapshot (another `code`, a bad level, a crossed book).
    package func seedBook(_ body: UnsafeRawBufferPointer, at index: Int, into table: inout StreamMarketTable, receivedAt: Date) -> Bool {
        let json = JSONBytes(body)
        guard let root = json.rootObject(), let code = json.member("code", ofObjectAt: root), json.isString(code, "200000"),
              let data = json.member("data", ofObjectAt: root), data.kind == .object
        else { return false }
        var sequence: JSONBytes.Value?
        var time: JSONBytes.Value?
        var bids: JSONBytes.Value?
        var asks: JSONBytes.Value?
        json.members(ofObjectAt: data.start) { start, end, value in
            if json.matches(start, end, "sequence") { sequence = value }
            else if json.matches(start, end, "time") { time = value }
            else if json.matches(start, end, "bids") { bids = value }
            else if json.matches(start, end, "asks") { asks = value }
            return true
        }
        guard let last = sequence.flatMap(json.integer), let bids, let asks else { return false }
        table.beginBookSnapshot(index)
        guard table.setBookLevels(index, json, bids, bid: true), table.setBookLevels(index, json, asks, bid: false) else {
            table.invalidateBook(index)
            return false
        }
        guard table.commitBook(index, at: json.millis(time) ?? receivedAt, snapshot: true) == nil else { return false }
        table.seedBookSequence(index, lastUpdate: UInt64(last))
        table.replayBookDiffs(index) { table, frame in _ = decode(frame, into: &table, receivedAt: receivedAt) }
        return true
    }

    /// A `/market/level2` message: applied, buffered for the snapshot, skipped, or a gap.
    static func level2(
        _ json: JSONBytes, _ data: KuCoinStream.DataFields, frame: UnsafeRawBufferPointer, receivedAt: Date, into table: inout StreamMarketTable
    ) -> StreamFrame {
        let time = data.time
        guard let symbol = data.symbol, symbol.kind == .string, let first = data.sequenceStart.flatMap(json.integer),
              let final = data.sequenceEnd.flatMap(json.integer), final >= first, let changes = data.changes, changes.kind == .object
        else { return .dropped(.malformed) }
        // A well-formed message on a stream that keeps no books (not subscribed) is of no interest.
        guard table.keepsBooks else { return .ignored }
        guard let index = table.index(of: json.slice(symbol)) else { return .unwatched }
        let held = table.entries[index].bookSequence.last ?? 0
        switch table.checkBookSequence(index, first: UInt64(first), final: UInt64(final)) {
        case .buffer:
            table.requestBookSnapshot(index, reason: nil)
            table.bufferBookDiff(index, frame)
            return .ignored
        case .skip:
            return .dropped(.outOfOrder)
        case .gap:
            table.requestBookSnapshot(index, reason: table.bookGapReason(index))
            table.bufferBookDiff(index, frame)
            return .data  // the book thrown away is handed on: the engine stops pricing with it
        case .apply:
            var usable = true
            if let bids = data.bids { usable = apply(json, bids, bid: true, after: held, index, into: &table) }
            if usable, let asks = data.asks { usable = apply(json, asks, bid: false, after: held, index, into: &table) }
            guard usable else {
                table.requestBookSnapshot(index, reason: .sequenceGap)
                return .dropped(.malformed)
            }
            if let fault = table.commitBook(index, at: json.millis(time) ?? receivedAt, snapshot: false) {
                // A change that crosses the book or sends an impossible level: a change was lost.
                table.requestBookSnapshot(index, reason: .sequenceGap)
                return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
            }
            table.noteBookChange(index)
            return .data
        }
    }

    /// Applies one side's `[price, size, sequence]` changes numbered after `held`; a price of 0 (a change
    /// that only moves the sequence) is passed over. False when the list is not that shape.
    private static func apply(
        _ json: JSONBytes, _ list: JSONBytes.Value, bid: Bool, after held: UInt64, _ index: Int, into table: inout StreamMarketTable
    ) -> Bool {
        guard list.kind == .array else { return false }
        var shapeOK = true
        let end = json.elements(ofArrayAt: list.start) { change in
            guard change.kind == .array else { shapeOK = false; return false }
            var count = 0
            var price = -1.0
            var size = -1.0
            var sequence: Int64?
            json.elements(ofArrayAt: change.start) { part in
                switch count {
                case 0: price = json.quantity(part) ?? -1
                case 1: size = json.quantity(part) ?? -1
                case 2: sequence = json.integer(part)
                default: break
                }
                count += 1
                return true
            }
            guard count == 3, let sequence else { shapeOK = false; return false }
            if UInt64(sequence) <= held || price == 0 { return true }
            table.setBookLevel(index, bid: bid, price: price, size: size)
            return true
        }
        return shapeOK && end != nil
    }
}
