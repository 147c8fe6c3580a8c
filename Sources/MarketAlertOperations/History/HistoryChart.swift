import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage

/// SVG charts of premium history: the status page's 24 h sparkline and `marketalertd history --plot`'s chart
/// with the rule's levels. Plain SVG 1.1 (no script, no external assets), numbers with fixed decimals.
package enum HistoryChart {
    /// A compact line of the max pct per bucket (gaps where no sample exists), with a `<title>` summary.
    package static func sparkline(_ buckets: [HistoryBucket], count: Int, width: Int = 120, height: Int = 28) -> String {
        guard !buckets.isEmpty, count > 0 else { return "" }
        let low = buckets.map(\.minPct).min() ?? 0
        let high = buckets.map(\.maxPct).max() ?? 0
        let span = high - low > 0 ? high - low : 1
        func x(_ index: Int) -> String { fixed(Double(index) * Double(width - 2) / Double(max(1, count - 1)) + 1) }
        func y(_ pct: Double) -> String { fixed(Double(height - 2) - (pct - low) / span * Double(height - 4) ) }
        // Runs of consecutive buckets become lines; a bucket alone (a gap on both sides) becomes a dot.
        var paths: [String] = []
        var dots: [String] = []
        var run: [HistoryBucket] = []
        func endRun() {
            if run.count == 1, let only = run.first {
                dots.append("<circle cx=\"\(x(only.index))\" cy=\"\(y(only.maxPct))\" r=\"2\" fill=\"currentColor\"/>")
            } else if let first = run.first {
                paths.append("M\(x(first.index)),\(y(first.maxPct))" + run.dropFirst().map { " L\(x($0.index)),\(y($0.maxPct))" }.joined())
            }
            run = []
        }
        for bucket in buckets.sorted(by: { $0.index < $1.index }) {
            if let last = run.last, bucket.index != last.index + 1 { endRun() }
            run.append(bucket)
        }
        endRun()
        let title = "last 24 h: min \(NumberText.pctText(low))%, max \(NumberText.pctText(high))%"
        return """
            <svg class="spark" xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
            role="img" aria-label="\(escape(title))"><title>\(escape(title))</title>\
            <line x1="0" y1="\(height - 1)" x2="\(width)" y2="\(height - 1)" stroke="#c8ccd2" stroke-width="1"/>\
            \(paths.isEmpty ? "" : "<path d=\"\(paths.joined(separator: " "))\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/>")\
            \(dots.joined())</svg>
            """
    }

    /// A chart of pct over time (the max and min of each sample as a band, the last as a line) with every
    /// level of the rule and its clear level drawn and labelled.
    package static func plot(_ samples: [HistorySample], rule: PremiumRule, asset: String, since: Date, until: Date, timeZone: TimeZone, zoneName: String? = nil) -> String {
        let width = 960.0, height = 420.0, left = 70.0, right = 150.0, top = 40.0, bottom = 50.0
        let levels = rule.levels.map { (pct: $0.pct, label: "\($0.severity.rawValue) \(NumberText.pctText($0.pct))%") }
            + [(pct: rule.clearPct, label: "clear \(NumberText.pctText(rule.clearPct))%")]
        let values = samples.flatMap { [$0.minPct, $0.maxPct] } + levels.map(\.pct)
        var low = values.min() ?? 0
        var high = values.max() ?? 1
        if high - low < 1e-9 { low -= 0.5; high += 0.5 }
        let pad = (high - low) * 0.05
        low -= pad
        high += pad
        let t0 = since.timeIntervalSince1970, t1 = max(until.timeIntervalSince1970, t0 + 1)
        func x(_ date: Date) -> Double { left + (date.timeIntervalSince1970 - t0) / (t1 - t0) * (width - left - right) }
        func y(_ pct: Double) -> Double { top + (high - pct) / (high - low) * (height - top - bottom) }
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" \
            font-family="sans-serif" font-size="12">
            <title>\(escape("\(asset) premium (\(rule.name))"))</title>
            <rect x="0" y="0" width="\(Int(width))" height="\(Int(height))" fill="#ffffff"/>
            <text x="\(fixed(left))" y="24" font-size="15" font-weight="bold">\(escape("\(asset) premium (\(rule.name)), \(samples.count) samples"))</text>
            <rect x="\(fixed(left))" y="\(fixed(top))" width="\(fixed(width - left - right))" height="\(fixed(height - top - bottom))" fill="none" stroke="#999999"/>

            """
        for tick in 0...4 {
            let pct = low + (high - low) * Double(tick) / 4
            svg += "<text x=\"\(fixed(left - 6))\" y=\"\(fixed(y(pct) + 4))\" text-anchor=\"end\" fill=\"#555555\">\(escape(NumberText.percent(pct)))%</text>\n"
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = t1 - t0 > 2 * 86_400 ? "d MMM" : "d MMM HH:mm"
        for tick in 0...4 {
            let date = Date(timeIntervalSince1970: t0 + (t1 - t0) * Double(tick) / 4)
            svg += "<text x=\"\(fixed(x(date)))\" y=\"\(fixed(height - bottom + 18))\" text-anchor=\"middle\" fill=\"#555555\">\(escape(formatter.string(from: date)))</text>\n"
        }
        svg += "<text x=\"\(fixed(left))\" y=\"\(fixed(height - 8))\" fill=\"#555555\">\(escape("times in \(zoneName ?? timeZone.identifier)"))</text>\n"
        for (index, level) in levels.enumerated() {
            let isClear = index == levels.count - 1
            let color = isClear ? "#2e7d32" : (index == levels.count - 2 ? "#c62828" : "#ef6c00")
            svg += "<line class=\"\(isClear ? "clear" : "level")\" data-pct=\"\(NumberText.pctText(level.pct))\" x1=\"\(fixed(left))\" "
                + "y1=\"\(fixed(y(level.pct)))\" x2=\"\(fixed(width - right))\" y2=\"\(fixed(y(level.pct)))\" stroke=\"\(color)\" "
                + "stroke-dasharray=\"6 4\"/>\n"
            svg += "<text class=\"\(isClear ? "clear" : "level")-label\" x=\"\(fixed(width - right + 6))\" y=\"\(fixed(y(level.pct) + 4))\" "
                + "fill=\"\(color)\">\(escape(level.label))</text>\n"
        }
        let sorted = samples.sorted { $0.at < $1.at }
        if !sorted.isEmpty {
            let upper = sorted.map { "\(fixed(x($0.at))),\(fixed(y($0.maxPct)))" }
            let lower = sorted.reversed().map { "\(fixed(x($0.at))),\(fixed(y($0.minPct)))" }
            svg += "<polygon class=\"band\" points=\"\((upper + lower).joined(separator: " "))\" fill=\"#1565c0\" fill-opacity=\"0.15\"/>\n"
            svg += "<polyline class=\"last\" points=\"\(sorted.map { "\(fixed(x($0.at))),\(fixed(y($0.lastPct)))" }.joined(separator: " "))\" "
                + "fill=\"none\" stroke=\"#1565c0\" stroke-width=\"1.2\"/>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    package static func fixed(_ value: Double) -> String { String(format: "%.1f", value.isFinite ? value : 0) }

    /// Text and attribute values of the SVG, escaped over Unicode scalars (see `HTML.escape`).
    package static func escape(_ text: String) -> String { MarkupEscaping.html(text) }
}
