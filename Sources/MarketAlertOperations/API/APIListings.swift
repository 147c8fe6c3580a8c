import Foundation
import Hummingbird
import MarketAlertCore

/// v3 `GET /api/v1/listings?since=RFC3339`: the listings and delistings notified since `since` (default and
/// earliest: 7 days ago), newest first.
extension APIResponder {
    package struct ListingsDocument: Encodable {
        package var listings: [Entry]

        package struct Entry: Encodable {
            package var exchange: String
            package var market: String
            package var asset: String
            package var quote: String
            package var firstSeen: Date
            package var status: String
            package var at: Date

            enum CodingKeys: String, CodingKey { case exchange, market, asset, quote, firstSeen = "first_seen", status, at }
        }

        package init(_ records: [ListingRecord]) {
            listings = records.map {
                Entry(
                    exchange: $0.exchange, market: $0.market.market, asset: $0.market.asset, quote: $0.market.quote,
                    firstSeen: $0.firstSeen, status: $0.status, at: $0.at)
            }
        }
    }

    package func listings(_ request: Request) async -> Response {
        let query = Self.queryItems(request.uri.query)
        let now = backend.clock.now()
        var since = now.addingTimeInterval(-ListingBook.recentWindow)
        if let text = query["since"] {
            guard let date = StrictRFC3339.parse(text) else {
                return Self.json(
                    APIDocuments.Problem(error: "since: expected an RFC 3339 time such as 2026-11-22T09:00:00Z", field: "since"),
                    status: .badRequest)
            }
            since = max(since, date)
        }
        let from = since
        let records = await backend.loop.snapshot { $0.listingRecords(since: from) }
        return Self.json(ListingsDocument(records))
    }
}
