import MarketAlertKit

/// Builds the page's HTML (one per render, never shared); every text goes through `MarkupEscaping.html`.
package final class HTMLBuffer {
    private(set) var text = ""

    package init() { text.reserveCapacity(32 * 1024) }

    @discardableResult
    package func raw(_ html: String) -> HTMLBuffer {
        text += html
        return self
    }

    @discardableResult
    package func text(_ value: String) -> HTMLBuffer {
        text += MarkupEscaping.html(value)
        return self
    }

    package func section(_ id: String, _ title: String, count: Int) {
        text += "<section id=\"\(id)\"><h2>\(MarkupEscaping.html(title)) <span class=\"count\">(\(count))</span></h2>"
    }

    package func empty(_ message: String) {
        text += "<p class=\"empty\">\(MarkupEscaping.html(message))</p></section>"
    }

    package func table(_ headers: [String]) {
        text += "<table><thead><tr>" + headers.map { "<th scope=\"col\">\(MarkupEscaping.html($0))</th>" }.joined() + "</tr></thead><tbody>"
    }

    package func endTable() { text += "</tbody></table></section>" }

    @discardableResult
    package func cell(_ label: String, _ value: String, numeric: Bool = false) -> HTMLBuffer {
        text += "<td data-label=\"\(MarkupEscaping.html(label))\"\(numeric ? " class=\"num\"" : "")>\(MarkupEscaping.html(value))</td>"
        return self
    }
}
