import Foundation
import AsyncHTTPClient
import Logging
import MarketAlertCore
import NIOCore

/// Runs any exchange's `ExchangeStreamProtocol` over real WebSocket connections: the pure
/// `StreamConnectionStateMachine` decides, this carries out (connects, sends, closes, sleeps on the injected
/// `DaemonClock`); `StreamIntake` decodes every frame into the market table as it is read and hands its
/// quotes to the consumer at once (the consumer coalesces).
package struct WebSocketStreamSource<P: ExchangeStreamProtocol>: StreamSource {
    package let protocolDescription: P
    package let url: URL
    package let staleAfter: Duration
    package let counters: StreamCounters
    let clock: any DaemonClock
    let connector: WebSocketConnector
    let reconnect: StreamReconnectPolicy
    let connectTimeout: Duration
    let ackTimeout: Duration
    let random: @Sendable () -> Double
    let logger: Logger?
    /// Where each connection goes, for an exchange that hands out endpoints over REST (KuCoin).
    let endpoint: StreamEndpointResolver?
    /// v3: order-book levels each market's book keeps (nil: tickers only).
    let depthLevels: Int?
    /// v3: the exchange's REST API, for book snapshots fetched by the transport (`StreamBookResync.restSnapshot`).
    let restBaseURL: URL?
    /// Gets those snapshots: the daemon's HTTP client, else (made only when a snapshot is fetched) the
    /// process's shared one.
    let fetcher: (any HTTPFetcher)?

    var bookFetcher: any HTTPFetcher { fetcher ?? AsyncHTTPFetcher(client: .shared, clock: clock) }

    package init(
        protocol protocolDescription: P, url: URL, staleAfter: Duration = .seconds(30), clock: any DaemonClock,
        connector: WebSocketConnector = WebSocketConnector(), counters: StreamCounters = StreamCounters(),
        reconnect: StreamReconnectPolicy? = nil, connectTimeout: Duration = .seconds(10), ackTimeout: Duration = .seconds(10),
        random: @escaping @Sendable () -> Double = StreamJitter.make(), logger: Logger? = nil, depthLevels: Int? = nil,
        restBaseURL: URL? = nil, bookFetcher: (any HTTPFetcher)? = nil
    ) {
        self.depthLevels = depthLevels
        self.restBaseURL = restBaseURL
        self.fetcher = bookFetcher
        self.protocolDescription = protocolDescription
        self.url = url
        self.staleAfter = staleAfter
        self.clock = clock
        self.connector = connector
        self.counters = counters
        self.reconnect = reconnect ?? StreamReconnectPolicy(minimumDelay: protocolDescription.reconnectFloor)
        self.connectTimeout = connectTimeout
        self.ackTimeout = ackTimeout
        self.random = random
        self.logger = logger
        self.endpoint = StreamEndpointResolver(protocolDescription, url: url, timeout: connectTimeout)
    }

    package var exchange: ExchangeID { protocolDescription.exchange }

    /// The state machine's configuration for `subscription`.
    package func configuration(for subscription: StreamSubscription) -> StreamConnectionConfiguration {
        StreamConnectionConfiguration(
            keepalive: protocolDescription.keepalive, staleAfter: staleAfter, connectTimeout: connectTimeout,
            ackTimeout: ackTimeout, reconnect: reconnect, lifetime: protocolDescription.lifetime,
            outboundLimit: protocolDescription.outboundLimit, subscribeMessages: subscription.messages.count,
            expectedAcks: subscription.acks, liveOnFirstData: subscription.liveOnFirstData)
    }

    /// One connection for every pair, or, where the exchange limits markets per connection
    /// (`maxMarketsPerConnection`) and there are more, one per share of them (`runSharded`).
    package func run(pairs: Set<MarketPair>, emit: @escaping @Sendable (StreamUpdate) -> Void) async {
        guard !pairs.isEmpty else { return }
        let shards = Self.shards(of: pairs, limit: protocolDescription.maxMarketsPerConnection, marketID: protocolDescription.marketID)
        guard shards.count > 1 else {
            await runConnection(pairs: pairs, quotes: emit, status: emit)
            return
        }
        await runSharded(shards, emit: emit)
    }

    /// One connection for `pairs`: its own market table, subscription, intake, driver and state machine.
    /// Quotes go to `quotes` straight from the intake; the connection's state to `status`.
    func runConnection(
        pairs: Set<MarketPair>, quotes: @escaping @Sendable (StreamUpdate) -> Void, status: @escaping @Sendable (StreamUpdate) -> Void,
        connection: String? = nil
    ) async {
        let table = StreamMarketTable(pairs: pairs, marketID: protocolDescription.marketID, depthLevels: depthLevels)
        let subscription = protocolDescription.subscription(for: table.markets)
        let intake = StreamIntake(decoder: protocolDescription, table: table, clock: clock, counters: counters, emit: quotes)
        var driver = StreamDriver(
            source: self, intake: intake, markets: table.markets, subscription: subscription,
            machine: StreamConnectionStateMachine(configuration: configuration(for: subscription)), connection: connection)
        await driver.run(emit: status)
    }
}

/// Everything the driver loop hears about: a connection's event or a timer.
enum StreamDriverEvent: Sendable {
    case link(StreamLinkID, WebSocketLinkEvent)
    /// A frame the intake decoded that the state machine must hear of.
    case frame(StreamLinkID, StreamFrame)
    case tick(Date)
    /// A REST snapshot of a book the transport fetched (`StreamBookResync.restSnapshot`).
    case bookSnapshot(BookSnapshotRequest, Data)
}
