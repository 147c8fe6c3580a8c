import PostgresNIO

/// Why a write under HA was refused. Both mean: this instance must not persist or deliver anything now.
package enum HAWriteRefused: Error, Equatable, CustomStringConvertible {
    /// This instance holds no lease (a standby, or between losing and regaining it).
    case notLeader
    /// The database refused the write: the lease is no longer this instance's at this epoch (expired or taken
    /// over). The instance must step down.
    case fenced(epoch: Int64)

    package var description: String {
        switch self {
        case .notLeader: "not the leader: this instance holds no lease"
        case .fenced(let epoch): "fenced: the lease is no longer held at epoch \(epoch) (expired or taken over)"
        }
    }
}

/// A PostgreSQL error in words a log can show: the server's message or the connection problem, never the URL.
package struct PostgresFailure: Error, CustomStringConvertible {
    package var description: String

    package init(description: String) { self.description = description }

    package init(_ error: PSQLError) {
        if let message = error.serverInfo?[.message] {
            let code = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            description = "PostgreSQL: \(message)\(code)"
        } else if let underlying = error.underlying {
            description = "PostgreSQL unreachable: \(underlying)"
        } else {
            description = "PostgreSQL: \(error.code)"
        }
    }
}
