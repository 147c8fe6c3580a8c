import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bithumb public WebSocket (`wss://ws-api.bithumb.com/websocket/v1`), which follows Upbit's: one request
/// with `ticker` and `orderbook` (`KRW-BTC.1`) for every watched market, `QUOTE-BASE` codes, no
/// acknowledgement, errors as `{"error":{"name":…,"message":…}}`, full (`DEFAULT`) keys. Frames may be
/// text or binary. `timestamp` is in milliseconds in ticker frames and in microseconds in orderbook frames
/// (read by its size, see `UpbitStyleFrames.TimeUnit`). Keepalive: a WebSocket ping every 30 s. Bithumb limits connection requests to 10 per
/// second per IP.
package struct BithumbStream: ExchangeStreamProtocol {
    package let ticket: String

    package init(ticket: String = "marketalertd-\(UUID().uuidString.lowercased())") { self.ticket = ticket }

    package var exchange: ExchangeID { .bithumb }
    package var keepalive: StreamKeepalive { .clientPings(.protocolFrame, every: .seconds(30), window: .seconds(45)) }
    package var reconnectFloor: Duration { .seconds(1) }

    /// `KRW-BTC` (the WebSocket spells markets like Upbit, not like the public REST API's `BTC_KRW`).
    package func marketID(_ pair: MarketPair) -> String { "\(pair.quote)-\(pair.base)".uppercased() }

    package func subscription(for markets: [String]) -> StreamSubscription {
        UpbitStyleFrames.subscription(ticket: ticket, markets: markets, format: "DEFAULT")
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        UpbitStyleFrames.decode(frame, into: &table, time: .millisecondsOrMicroseconds)
    }
}
