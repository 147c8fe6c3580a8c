import Foundation
import MarketAlertCore
import MarketAlertKit

/// The WebSocket frame layout OKX v5 uses and Bitget v2 copies: the text `pong`; control messages
/// `{"event":"subscribe"|"error"|"notice", "arg":{"channel","instId"}, "code", "msg"}` (one subscribe
/// acknowledgement per instrument); data `{"arg":{"channel",…},"data":[{"instId",…prices…,"ts"}]}`. Each
/// exchange gives its channel, the names of its row's price fields, and how it reads an error or a notice.
package struct OKXStyleFrames {
    /// `tickers` (OKX) or `ticker` (Bitget).
    package let channel: StaticString
    package let lastField: StaticString
    package let bidField: StaticString
    package let askField: StaticString

    /// The control message's members, for the exchange's own reading of errors and notices.
    package struct Event {
        package var event: JSONBytes.Value
        package var arg: JSONBytes.Value?
        package var code: JSONBytes.Value?
        package var msg: JSONBytes.Value?
    }

    /// Decodes one frame: `pong` is a heartbeat, a subscribe event an acknowledgement keyed
    /// `channel:instId`, any other event goes to `onEvent` (nil from it: ignored), and data rows of the
    /// channel are applied to `table`. Allocates only for acknowledgements and errors.
    package func decode(
        _ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, onEvent: (JSONBytes, Event) -> StreamFrame?
    ) -> StreamFrame {
        let json = JSONBytes(frame)
        if json.matches(0, frame.count, "pong") { return .heartbeat }
        var event: JSONBytes.Value?
        var arg: JSONBytes.Value?
        var data: JSONBytes.Value?
        var code: JSONBytes.Value?
        var msg: JSONBytes.Value?
        var action: JSONBytes.Value?
        let whole = json.rootMembers { start, end, value in
            if json.matches(start, end, "data") { data = value }
            else if json.matches(start, end, "action") { action = value }
            else if json.matches(start, end, "arg") { arg = value }
            else if json.matches(start, end, "event") { event = value }
            else if json.matches(start, end, "code") { code = value }
            else if json.matches(start, end, "msg") { msg = value }
            return true
        }
        guard whole else { return .dropped(.malformed) }
        if let event {
            guard json.isString(event, "subscribe") else { return onEvent(json, Event(event: event, arg: arg, code: code, msg: msg)) ?? .ignored }
            guard let arg, arg.kind == .object, let channel = json.member("channel", ofObjectAt: arg.start),
                  let instrument = json.member("instId", ofObjectAt: arg.start)
            else { return .dropped(.malformed) }
            return .acked(keys: ["\(json.string(channel)):\(json.string(instrument))"], complete: false)
        }
        guard let data, data.kind == .array else { return .dropped(.unknownMessage) }
        if let arg, arg.kind == .object, let channel = json.member("channel", ofObjectAt: arg.start), !json.isString(channel, self.channel) {
            // v3 books (`OKXStyleBooks`), when the table keeps them.
            guard json.isString(channel, "books"), table.keepsBooks, let instrument = json.member("instId", ofObjectAt: arg.start) else {
                return .ignored
            }
            let snapshot = action.map { json.isString($0, "snapshot") } ?? false
            return OKXStyleBooks.apply(json, data, snapshot: snapshot, instrument: instrument, into: &table)
        }
        return applyRows(json, data, into: &table)
    }

    /// Applies each row of `data`; `.data` when at least one quote changed, else the first row's outcome.
    private func applyRows(_ json: JSONBytes, _ data: JSONBytes.Value, into table: inout StreamMarketTable) -> StreamFrame {
        var result = StreamFrame.dropped(.malformed)
        var applied = false
        json.elements(ofArrayAt: data.start) { row in
            guard row.kind == .object else { return false }
            var fields = StreamQuoteFields()
            var instrument: JSONBytes.Value?
            json.members(ofObjectAt: row.start) { start, end, value in
                if json.matches(start, end, "instId") { instrument = value }
                else if json.matches(start, end, lastField) { fields.last = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, bidField) { fields.bid = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, askField) { fields.ask = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "ts") { fields.exchangeTime = json.millis(value) }
                return true
            }
            guard let instrument, instrument.kind == .string else { return false }
            let outcome = table.apply(fields, market: json.slice(instrument))
            if outcome == .data { applied = true } else if !applied { result = outcome }
            return true
        }
        return applied ? .data : result
    }
}
