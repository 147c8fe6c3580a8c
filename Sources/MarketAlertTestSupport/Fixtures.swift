import Foundation

/// Recorded API responses in `Tests/Fixtures` (copied from shared/fixtures; see PROVENANCE.md there).
package enum Fixtures {
    package static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures")

    package static func url(_ relativePath: String) -> URL { directory.appendingPathComponent(relativePath) }

    package static func data(_ relativePath: String) throws -> Data { try Data(contentsOf: url(relativePath)) }

    package static func string(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self)
    }

    /// The repository root (for `config/`, `systemd/`, `scripts/` and the built binary).
    package static let repositoryRoot: URL = directory.deletingLastPathComponent().deletingLastPathComponent()
}
