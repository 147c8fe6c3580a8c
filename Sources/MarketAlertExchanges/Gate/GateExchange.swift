import Foundation
import MarketAlertCore
import MarketAlertKit

extension ExchangeID {
    package static let gate: ExchangeID = "gate"
}

/// Gate (gate.io) API v4 spot. REST: `/api/v4/spot/tickers`, every spot pair in one answer (public endpoints
/// allow 200 requests per 10 s per IP and endpoint: a bulk poll every 250 ms is a fifth of it).
package enum GateExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.gate, rest: "https://api.gateio.ws", stream: "wss://api.gateio.ws/ws/v4/", minimumPollInterval: .milliseconds(250), takerFeePct: 0.1),
        marketID: GateTickerSource.currencyPair,
        makeQuoteSource: { GateTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try GateTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: GateStream(),
        wire: GateWire.kit,
        marketList: { GateMarketList(client: $0) },
        volumes: { GateVolumes(client: $0) },
        transferStatus: GateTransferStatus.adapter)
}
