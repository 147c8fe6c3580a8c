import Foundation
import MarketAlertCore

/// HTX's `market.<symbol>.depth.step0` (v3 books): the top 150 levels a side, unaggregated, as a full
/// snapshot once a second on the market WebSocket the daemon already reads (`/ws`):
/// `{"ch":…,"ts":…,"tick":{"bids":[[price,size],…],"asks":[…],"version":N,"ts":M}}`, prices and sizes as JSON
/// numbers (`9.121E-7` too). Chosen over `mbp.refresh.<5|10|20>`, which HTX's docs now place on `/feed` (`/ws`
/// "may be offline in the future") and which stops at 20 levels.
///
/// Every push is the whole book, so nothing can go missing between two: a push that is unusable (a crossed
/// book, a bad level) leaves the book unusable until the next one, a second later, and no resync is asked
/// for. HTX's docs say to discard a `depth` push whose `version` is smaller than one already applied: a push
/// older in both `version` and time than the book (a replaced connection's late frame) is dropped; a smaller
/// `version` with a newer time is HTX numbering afresh, and is taken.
///
/// The book sits beside `market.<symbol>.bbo`, which keeps the market's best bid and ask tick by tick: a
/// depth push sets the book only, not the quote's bid and ask.
package enum HTXBook {
    /// `market.btcusdt.depth.step0`.
    package static func topic(_ symbol: String) -> String { "market.\(symbol).depth.step0" }

    /// One `depth.step0` push for the market whose symbol is `market`.
    static func apply(
        _ json: JSONBytes, tick: JSONBytes.Value, ts: JSONBytes.Value?, market: UnsafeRawBufferPointer, into table: inout StreamMarketTable
    ) -> StreamFrame {
        guard let index = table.index(of: market) else { return .unwatched }
        guard table.keepsBooks else { return .ignored }
        var bids: JSONBytes.Value?
        var asks: JSONBytes.Value?
        var version: JSONBytes.Value?
        var tickTime: JSONBytes.Value?
        json.members(ofObjectAt: tick.start) { start, end, value in
            if json.matches(start, end, "bids") { bids = value }
            else if json.matches(start, end, "asks") { asks = value }
            else if json.matches(start, end, "version") { version = value }
            else if json.matches(start, end, "ts") { tickTime = value }
            return true
        }
        guard let bids, let asks, let time = json.millis(tickTime) ?? json.millis(ts) else { return .dropped(.malformed) }
        let number: UInt64?
        if let version {
            guard let value = json.integer(version) else { return .dropped(.malformed) }
            number = UInt64(value)
        } else {
            number = nil
        }
        if let number, let last = table.entries[index].bookSequence.last, number <= last,
           let held = table.book(index)?.at, time <= held {
            return .dropped(.outOfOrder)
        }
        table.beginBookSnapshot(index)
        guard table.setBookLevels(index, json, bids, bid: true), table.setBookLevels(index, json, asks, bid: false) else {
            table.invalidateBook(index)
            return .dropped(.malformed)
        }
        let fault = table.updateBook(index) { $0.commit(at: time, snapshot: true) } ?? nil
        if let number { table.seedBookSequence(index, lastUpdate: number) }
        // Handed on whatever came of it (an unusable book too: the engine must stop pricing with it); the
        // quote's time is its freshest part's.
        let held = table.entries[index].exchangeTime
        table.apply(index, exchangeTime: held.map { max($0, time) } ?? time)
        guard let fault else { return .data }
        return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
    }
}
