import Foundation

/// v2 `http:`: the status page, JSON API, `/metrics`, `/healthz` and `/readyz`. Absent: nothing is served.
package struct HTTPSettings: Sendable, Equatable {
    /// Host part of `listen` (an IPv4 or IPv6 address or a host name; IPv6 without its brackets).
    package var host: String
    /// Port part of `listen`; 0 lets the system pick a free one (logged and shown in `STATUS=`).
    package var port: Int
    /// Name of the secret that holds the bearer token of the endpoints that change state (environment or
    /// `$CREDENTIALS_DIRECTORY`). Required for a non-loopback `listen`.
    package var tokenEnv: String?
    /// v3 `external_url`: where users reach the status page; links in notifications (ntfy's Click).
    package var externalURL: URL?

    package init(host: String, port: Int, tokenEnv: String? = nil) {
        self.host = host
        self.port = port
        self.tokenEnv = tokenEnv
    }

    /// `listen` as written back: `127.0.0.1:9108`, `[::1]:9108`.
    package var listen: String { Self.format(host: host, port: port) }

    package static func format(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Whether only this machine can reach `host`: 127.0.0.0/8, ::1 and `localhost`.
    package var isLoopback: Bool { Self.isLoopback(host) }

    package static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Splits `HOST:PORT` (`[v6]:PORT` for IPv6); nil when malformed.
    package static func parseListen(_ text: String) -> (host: String, port: Int)? {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }),
              !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText), (0...65535).contains(port)
        else { return nil }
        return (String(host), port)
    }

    /// Reads `http:` (`listen`, `token_env`, v3 `external_url`); records an error naming the key for a malformed address and for
    /// a non-loopback address without a token.
    static func read(_ table: ConfigTable) -> HTTPSettings? {
        let listen = table.required("listen", table.string)
        let tokenEnv = table.string("token_env")
        let externalURL = table.url("external_url")
        if let tokenEnv, tokenEnv.isEmpty || tokenEnv.contains("/") || tokenEnv.contains("=") {
            table.error("token_env", "expected the name of an environment variable or credential, got \"\(tokenEnv)\"")
        }
        guard let listen else { return nil }
        guard let parsed = parseListen(listen) else {
            table.error("listen", "expected HOST:PORT such as \"127.0.0.1:9108\" or \"[::1]:9108\" (port 0-65535), got \"\(listen)\"")
            return nil
        }
        var settings = HTTPSettings(host: parsed.host, port: parsed.port, tokenEnv: tokenEnv)
        settings.externalURL = externalURL
        if !settings.isLoopback && tokenEnv == nil {
            table.error(
                "token_env",
                "listen \(listen) is reachable from other machines: set token_env (the bearer token for silences), or listen on 127.0.0.1")
        }
        return settings
    }
}
