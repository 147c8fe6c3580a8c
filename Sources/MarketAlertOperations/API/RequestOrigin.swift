#if canImport(Glibc)
import MarketAlertKit
import MarketAlertExchanges
import MarketAlertConfigReader
import MarketAlertStorage
import MarketAlertDelivery
import MarketAlertEngineLoop
import Glibc
#endif
import Foundation

/// Which requests may reach the API at all, and which may change state: defences against a web page in
/// the operator's browser (the API needs no token on loopback).
///
/// - **Host** (every endpoint): DNS rebinding points an attacker's name at 127.0.0.1, so the browser sends
///   `Host: evil.example`. Only an IP literal, `localhost` (and `*.localhost`), the listen host, or this
///   machine's own name is served; anything else answers 421.
/// - **Cross-site state changes** (POST, DELETE, …): a request whose `Origin` is not the server's own
///   (`null` included) or whose `Sec-Fetch-Site` is neither `same-origin` nor `none` answers 403.
/// - **JSON only**: a POST must say `Content-Type: application/json`, which a browser cannot send across
///   sites without a CORS preflight, and the server answers no preflight (it sends no CORS headers at all);
///   any other type answers 415.
package enum RequestOrigin {
    /// Whether `authority` (the `Host` header, `name[:port]`) names this server. A request without one
    /// (HTTP/1.0) is not a browser's and passes.
    package static func hostAllowed(_ authority: String?, listenHost: String?) -> Bool {
        guard let authority, !authority.isEmpty else { return true }
        guard let host = hostName(authority) else { return false }
        if isIPLiteral(host) { return true }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        if let listenHost, normalized(listenHost) == host { return true }
        return machineNames.contains(host)
    }

    /// Nil when a state-changing request may go on, else why it is refused.
    package static func crossSiteRefusal(origin: String?, fetchSite: String?, authority: String?) -> String? {
        if let fetchSite, !["same-origin", "none"].contains(fetchSite.lowercased().trimmingCharacters(in: .whitespaces)) {
            return "a cross-site request (Sec-Fetch-Site: \(fetchSite.prefix(20))) may not change state"
        }
        guard let origin else { return nil }
        let trimmed = origin.trimmingCharacters(in: .whitespaces)
        guard let authority, let parsed = URLComponents(string: trimmed), parsed.scheme?.lowercased() == "http",
            let originHost = parsed.host, parsed.path.isEmpty
        else { return "a request from another origin may not change state" }
        guard let requestHost = hostName(authority), normalized(originHost) == requestHost, (parsed.port ?? 80) == (port(authority) ?? 80) else {
            return "a request from another origin may not change state"
        }
        return nil
    }

    /// Whether `contentType` is `application/json` (parameters such as `charset` allowed).
    package static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        return media.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    // MARK: Parsing

    /// The host of `name[:port]` or `[v6][:port]`, lowercased, without a trailing dot; nil when malformed.
    package static func hostName(_ authority: String) -> String? {
        let text = authority.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            return String(text[text.index(after: text.startIndex)..<close]).lowercased()
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first, !name.isEmpty else { return nil }
        if parts.count == 2, parts[1].isEmpty || !parts[1].allSatisfy(\.isASCIIDigit) { return nil }
        guard name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0 != "/" && $0 != "@" }) else { return nil }
        return normalized(String(name))
    }

    private static func port(_ authority: String) -> Int? {
        let text = authority.trimmingCharacters(in: .whitespaces)
        let afterHost = text.hasPrefix("[") ? text.firstIndex(of: "]").map { text[text.index(after: $0)...] } ?? "" : Substring(text)
        guard let colon = afterHost.lastIndex(of: ":") else { return nil }
        return Int(afterHost[afterHost.index(after: colon)...])
    }

    private static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    package static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// This machine's name, short and as configured (`gethostname`), for a server reached by its name.
    package static let machineNames: Set<String> = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return [] }
        let name = normalized(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        guard !name.isEmpty else { return [] }
        return [name, String(name.prefix { $0 != "." })]
    }()
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
