import Foundation
import MarketAlertIO

/// A full-size Binance `GET /api/v3/ticker/24hr` list built from the recorded one
/// (`binance/ticker-24hr-all-20240310.json`, 2,519 real rows, of which about half are delisted symbols with
/// zero prices, as Binance really sends them). The recorded rows are kept byte for byte; the list is filled up
/// to `targetCount` with copies of live rows under new symbol names (`Z` + the original symbol), every other
/// field unchanged.
struct BinanceBulkList: Sendable {
    struct Row: Sendable {
        var symbol: String
        /// The row's JSON text.
        var text: String
        var template: FlatJSONTemplate
        /// `lastPrice` is not zero (the symbol trades).
        var isLive: Bool
    }

    static let fixture = "binance/ticker-24hr-all-20240310.json"

    let rows: [Row]
    let recordedCount: Int

    init(fixtures: FixtureFiles, targetCount: Int = 3000) throws {
        let text = try fixtures.string(Self.fixture).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("[{"), text.hasSuffix("}]") else { throw FixtureFiles.Missing(description: "\(Self.fixture): expected a JSON array of objects") }
        // The rows are flat objects (no nested objects or arrays), so "},{" separates them; checked by the
        // count below and by parsing every row.
        let pieces = text.dropFirst(2).dropLast(2).components(separatedBy: "},{")
        var rows: [Row] = []
        var symbols: Set<String> = []
        for piece in pieces {
            let rowText = "{" + piece + "}"
            let template = try FlatJSONTemplate(rowText)
            guard let symbol = template.text("symbol"), let last = template.text("lastPrice") else {
                throw FixtureFiles.Missing(description: "\(Self.fixture): a row without symbol or lastPrice")
            }
            rows.append(Row(symbol: symbol, text: rowText, template: template, isLive: (Decimal(string: last) ?? 0) > 0))
            symbols.insert(symbol)
        }
        guard rows.count == 2519, symbols.count == rows.count else {
            throw FixtureFiles.Missing(description: "\(Self.fixture): expected 2519 distinct rows, split into \(rows.count) (\(symbols.count) symbols)")
        }
        recordedCount = rows.count
        var clones: [Row] = []
        for row in rows where row.isLive && rows.count + clones.count < targetCount {
            let symbol = "Z" + row.symbol
            guard !symbols.contains(symbol) else { continue }
            symbols.insert(symbol)
            let rendered = row.template.render(["symbol": symbol.quoted])
            clones.append(Row(symbol: symbol, text: rendered, template: try FlatJSONTemplate(rendered), isLive: true))
        }
        self.rows = rows + clones
    }

    /// The whole list as Binance sends it (compact, no whitespace).
    var body: Data { Data(("[" + rows.map(\.text).joined(separator: ",") + "]").utf8) }

    func row(_ symbol: String) -> Row? { rows.first { $0.symbol == symbol } }

    /// Splits `ETHBTC` into `("ETH", "BTC")` by the quote currencies Binance uses; nil when none matches.
    static func split(_ symbol: String) -> (base: String, quote: String)? {
        for quote in quoteCurrencies where symbol.hasSuffix(quote) && symbol.count > quote.count {
            return (String(symbol.dropLast(quote.count)), quote)
        }
        return nil
    }

    /// Longest first, so `FDUSD` wins over `USD`-like suffixes.
    static let quoteCurrencies = [
        "FDUSD", "USDT", "USDC", "BUSD", "TUSD", "USDP", "DAI", "BIDR", "BVND", "IDRT", "BKRW", "UAH", "AEUR",
        "BTC", "ETH", "BNB", "TRX", "XRP", "DOGE", "DOT", "EUR", "GBP", "AUD", "TRY", "BRL", "RUB", "NGN",
        "ZAR", "PLN", "RON", "ARS", "JPY", "MXN", "COP", "CZK", "PAX", "VAI", "USDS", "UST",
    ].sorted { $0.count > $1.count }
}
