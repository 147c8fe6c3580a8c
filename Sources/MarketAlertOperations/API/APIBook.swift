import Foundation
import Hummingbird
import MarketAlertCore

/// v3 `GET /api/v1/book?exchange=E&market=M`: one order book the daemon holds for a `basis: depth` rule,
/// the levels a rule reads, best first, as `[price, size]` pairs; 404 when it holds none, 400 without both
/// parameters. The book is copied in the engine's turn (one actor hop), never read on the message path.
extension APIResponder {
    package struct BookDocument: Encodable {
        package var exchange: String
        package var market: String
        package var at: Date?
        package var bids: [[Double]]
        package var asks: [[Double]]
        package var synced: Bool

        package init(_ book: BookSnapshot) {
            exchange = book.exchange.rawValue
            market = book.market
            at = book.at
            bids = book.bids.map { [$0.price, $0.size] }
            asks = book.asks.map { [$0.price, $0.size] }
            synced = book.synced
        }

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(exchange, forKey: .exchange)
            try c.encode(market, forKey: .market)
            try c.encode(at, forKey: .at)  // null until the book's first change
            try c.encode(bids, forKey: .bids)
            try c.encode(asks, forKey: .asks)
            try c.encode(synced, forKey: .synced)
        }

        enum CodingKeys: String, CodingKey { case exchange, market, at, bids, asks, synced }
    }

    /// Longest parameter value read (exchange ids and market ids are short).
    static let bookParameterLimit = 64

    package func book(_ request: Request) async -> Response {
        let query = Self.queryItems(request.uri.query)
        func bad(_ field: String, _ message: String) -> Response {
            Self.json(APIDocuments.Problem(error: "\(field): \(message)", field: field), status: .badRequest)
        }
        guard let exchange = query["exchange"], !exchange.isEmpty else { return bad("exchange", "required") }
        guard let market = query["market"], !market.isEmpty else { return bad("market", "required") }
        for (field, value) in [("exchange", exchange), ("market", market)] {
            guard value.utf8.count <= Self.bookParameterLimit, value.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 })
            else { return bad(field, "expected an id of at most \(Self.bookParameterLimit) printable ASCII characters") }
        }
        let id = ExchangeID(exchange.lowercased())
        guard let book = await backend.loop.snapshot({ $0.orderBook(exchange: id, market: market) }) else {
            return Self.json(
                APIDocuments.Problem(error: "no order book held for \(id.rawValue) \(market) (books are kept for the markets of basis: depth rules)"),
                status: .notFound)
        }
        return Self.json(BookDocument(book))
    }
}
