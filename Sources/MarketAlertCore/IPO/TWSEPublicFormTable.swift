import Foundation

/// Maps TWSE's public-subscription table (`publicForm`: a `fields` header and `data` rows of strings) to
/// offerings. Columns are found by their header names, never by position; names are compared after
/// trimming whitespace (one real header is `"取消公開抽籤 "`) and folding full-width parentheses.
package enum TWSEPublicFormTable {
    /// Header names as TWSE publishes them.
    package enum Column {
        package static let code = "證券代號"
        package static let name = "證券名稱"
        package static let market = "發行市場"
        package static let subscriptionStart = "申購開始日"
        package static let subscriptionEnd = "申購結束日"
        package static let lotteryDate = "抽籤日期"
        package static let shares = "承銷股數"
        package static let finalShares = "實際承銷股數"
        package static let offerPrice = "承銷價(元)"
        package static let finalPrice = "實際承銷價(元)"
        /// The full name is `撥券日期(上市、上櫃日期)`; matched by prefix.
        package static let listingDatePrefix = "撥券日期"
        package static let drawCancelled = "取消公開抽籤"
        package static let lotShares = "申購股數"
        package static let qualifiedApplications = "總合格件"
        package static let winRate = "中籤率(%)"

        static let required = [code, name, subscriptionStart, subscriptionEnd]
    }

    /// Something wrong with one row; the row is still kept when it could be keyed (`kept`).
    package struct Issue: Sendable, Equatable, CustomStringConvertible {
        /// 1-based position in `data`.
        package var row: Int
        package var code: String?
        package var message: String
        package var kept: Bool

        package var description: String {
            "row \(row)\(code.map { " (\($0))" } ?? ""): \(message)\(kept ? "" : "; row skipped")"
        }
    }

    package struct Result: Sendable, Equatable {
        package var offerings: [IPOOffering]
        /// Rows left out by `exclude_name_patterns` (bonds and the like).
        package var excluded: Int
        package var issues: [Issue]

        package init(offerings: [IPOOffering], excluded: Int, issues: [Issue]) {
            self.offerings = offerings
            self.excluded = excluded
            self.issues = issues
        }
    }

    package enum TableError: Error, Sendable, Equatable, CustomStringConvertible {
        case missingColumn(String)

        package var description: String {
            switch self {
            case .missingColumn(let name): "the header has no \"\(name)\" column"
            }
        }
    }

    /// Offerings of one response. Rows whose code is not a plausible code (``PublishedText/isPlausibleCode(_:)``)
    /// are reported and skipped; names and other text cells are cleaned and capped (``PublishedText``).
    /// Rows whose name contains one of `excludeNamePatterns` (plain substrings) are counted in `excluded`. Rows whose dates do not parse are kept (their state is `unknown`) and
    /// reported in `issues`; rows that cannot be keyed (wrong cell count, no code) are reported and skipped.
    package static func offerings(
        fields: [String], rows: [[String]], source: String, calendar: MarketCalendar, currency: String = "TWD",
        excludeNamePatterns: [String]
    ) throws(TableError) -> Result {
        let names = fields.map(normalize)
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        for name in Column.required where index[name] == nil { throw .missingColumn(name) }
        let listingIndex = names.firstIndex { $0.hasPrefix(Column.listingDatePrefix) }

        var result = Result(offerings: [], excluded: 0, issues: [])
        var seenKeys: Set<String> = []
        for (offset, row) in rows.enumerated() {
            let number = offset + 1
            guard row.count == fields.count else {
                result.issues.append(Issue(
                    row: number, code: nil, message: "\(row.count) cells for \(fields.count) columns", kept: false))
                continue
            }
            func cell(_ name: String) -> String? {
                guard let position = index[name] else { return nil }
                return row[position].trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let code = cell(Column.code) ?? ""
            guard !code.isEmpty else {
                result.issues.append(Issue(row: number, code: nil, message: "no security code", kept: false))
                continue
            }
            // The code goes into the key, logs and messages: no newline, NUL, bidi control or odd character.
            guard PublishedText.isPlausibleCode(code) else {
                result.issues.append(Issue(
                    row: number, code: nil,
                    message: "security code \(PublishedText.visible(code)) is not a plausible code (2 to 12 ASCII letters or digits)",
                    kept: false))
                continue
            }
            let name = PublishedText.sanitized(cell(Column.name) ?? "", limit: PublishedText.nameLimit)
            if excludeNamePatterns.contains(where: { !$0.isEmpty && name.contains($0) }) {
                result.excluded += 1
                continue
            }
            func text(_ column: String) -> String? {
                cell(column).map { PublishedText.sanitized($0, limit: PublishedText.cellLimit) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            let startText = text(Column.subscriptionStart) ?? ""
            let endText = text(Column.subscriptionEnd) ?? ""
            let market = text(Column.market)
            let cancelled = text(Column.drawCancelled)
            let offering = IPOOffering(
                source: source, code: code, name: name, market: market, timeZone: calendar.timeZone.identifier,
                subscriptionStart: calendar.parseROC(cell(Column.subscriptionStart) ?? ""),
                subscriptionEnd: calendar.parseROC(cell(Column.subscriptionEnd) ?? ""),
                lotteryDate: cell(Column.lotteryDate).flatMap(calendar.parseROC),
                listingDate: listingIndex.flatMap { calendar.parseROC(row[$0]) },
                subscriptionStartText: startText, subscriptionEndText: endText,
                offerPrice: cell(Column.offerPrice).flatMap(price), finalPrice: cell(Column.finalPrice).flatMap(price),
                shares: cell(Column.shares).flatMap(shareCount), finalShares: cell(Column.finalShares).flatMap(shareCount),
                currency: currency, drawCancelled: cancelled, lotShares: cell(Column.lotShares).flatMap(shareCount),
                qualifiedApplications: cell(Column.qualifiedApplications).flatMap(shareCount),
                winRatePct: cell(Column.winRate).flatMap(rate))
            if offering.window == nil {
                let message = offering.subscriptionStart == nil || offering.subscriptionEnd == nil
                    ? "subscription dates \"\(startText)\" to \"\(endText)\" not understood; state unknown"
                    : "subscription ends (\(endText)) before it starts (\(startText)); state unknown"
                result.issues.append(Issue(row: number, code: code, message: message, kept: true))
            }
            guard seenKeys.insert(offering.key).inserted else {
                result.issues.append(Issue(row: number, code: code, message: "duplicate of \(offering.key)", kept: false))
                continue
            }
            result.offerings.append(offering)
        }
        return result
    }

    /// A positive decimal price (`"102"`, `"11.13"`); nil for `未訂出`, empty, zero or anything else.
    package static func price(_ text: String) -> Decimal? {
        Price(text.trimmingCharacters(in: .whitespaces))?.exact
    }

    /// A published rate (`"0.28"`, `"33.38"`, `"0"`); nil for anything that is not a plain non-negative decimal.
    package static func rate(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 12, trimmed.allSatisfy({ $0.isASCIIDigitCharacter || $0 == "." }),
              trimmed.filter({ $0 == "." }).count <= 1, trimmed.first != ".", trimmed.last != "."
        else { return nil }
        return Decimal(string: trimmed, locale: nil)
    }

    /// A share count with optional thousands separators (`"1,378,000"`); nil for anything else.
    package static func shareCount(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let groups = trimmed.split(separator: ",", omittingEmptySubsequences: false)
        guard let first = groups.first, !first.isEmpty, first.count <= (groups.count == 1 ? 18 : 3),
              groups.dropFirst().allSatisfy({ $0.count == 3 }),
              groups.allSatisfy({ $0.allSatisfy(\.isASCIIDigitCharacter) })
        else { return nil }
        return Int(groups.joined())
    }

    static func normalize(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "（", with: "(").replacingOccurrences(of: "）", with: ")")
    }
}
