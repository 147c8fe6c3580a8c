import Foundation
import MarketAlertTestSupport

/// Headless Chromium (Debian's `chromium`, installed by scripts/test) rendering a page for a test: the DOM
/// it built (`--dump-dom`, after scripts and the load event) and screenshots.
///
/// Headless Chromium will not make a window narrower than 500 px, so a phone-sized viewport is rendered as
/// a same-origin iframe of exactly that size (`viewportProbe`).
enum Chromium {
    static let binary: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static var available: Bool { binary != nil }

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    private static func run(_ arguments: [String], width: Int, height: Int) async throws -> CommandResult {
        guard let binary else { throw Failed(description: "chromium is not installed") }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let result = try await CommandRunner.run(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
             "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)", "--virtual-time-budget=5000"] + arguments,
            timeoutSeconds: 90)
        guard result.succeeded else { throw Failed(description: "chromium failed: \(result)") }
        return result
    }

    static func dumpDOM(_ url: String, width: Int, height: Int) async throws -> String {
        try await run(["--dump-dom", url], width: width, height: height).stdout
    }

    static func screenshot(_ url: String, to path: String, width: Int, height: Int) async throws {
        _ = try await run(["--screenshot=\(path)", url], width: width, height: height)
        guard FileManager.default.fileExists(atPath: path) else { throw Failed(description: "no screenshot written to \(path)") }
    }

    /// A page that shows `pagePath` (same origin) in an iframe of `width`×`height` and, once everything has
    /// loaded, writes what it measured inside into `body[data-result]` as JSON: the viewport width, the
    /// document's scroll width, elements sticking out past the viewport, whether the table headers are
    /// laid out as a header row, and the tables' widest right edge.
    static func viewportProbe(pagePath: String, width: Int, height: Int) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0">
        <iframe id="f" src="\(pagePath)" style="border:0;width:\(width)px;height:\(height)px"></iframe>
        <script>
        window.addEventListener('load', function () {
          var d = document.getElementById('f').contentDocument, w = d.documentElement.clientWidth;
          var out = [].slice.call(d.querySelectorAll('header *, main *, footer *')).filter(function (e) {
            return e.getBoundingClientRect().right > w + 0.5;
          }).map(function (e) { return e.tagName + (e.id ? '#' + e.id : '') + ':' + Math.round(e.getBoundingClientRect().right); });
          var head = d.querySelector('thead');
          document.body.setAttribute('data-result', JSON.stringify({
            width: w, scrollWidth: d.documentElement.scrollWidth, overflowing: out.slice(0, 20),
            headerRow: head ? getComputedStyle(head).position !== 'absolute' : null,
            sections: [].slice.call(d.querySelectorAll('main section')).map(function (s) { return s.id; })
          }));
        });
        </script></body></html>
        """
    }
}
