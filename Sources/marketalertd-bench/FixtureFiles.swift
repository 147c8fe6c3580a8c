import Foundation
import MarketAlertIO
import MarketAlertTestSupport

/// Where the recorded payloads are read from: `--fixtures`, else `./Tests/Fixtures` (the bench is run from
/// the repository root), else the package's own `Tests/Fixtures`.
struct FixtureFiles: Sendable {
    let directory: URL

    init(override: String?) {
        if let override {
            directory = URL(fileURLWithPath: override)
        } else if FileManager.default.fileExists(atPath: "Tests/Fixtures/binance") {
            directory = URL(fileURLWithPath: "Tests/Fixtures")
        } else {
            directory = Fixtures.directory
        }
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    func data(_ relativePath: String) throws -> Data {
        let url = directory.appendingPathComponent(relativePath)
        do {
            return try Data(contentsOf: url)
        } catch {
            throw Missing(description: "cannot read fixture \(url.path): \(error.localizedDescription)")
        }
    }

    func string(_ relativePath: String) throws -> String { String(decoding: try data(relativePath), as: UTF8.self) }

    /// The first object of a recorded JSON array, as a template.
    func firstRow(_ relativePath: String) throws -> FlatJSONTemplate {
        let text = try string(relativePath).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("["), let end = text.firstIndex(of: "}") else { throw Missing(description: "\(relativePath): expected an array of objects") }
        return try FlatJSONTemplate(String(text[text.index(after: text.startIndex)...end]))
    }
}
