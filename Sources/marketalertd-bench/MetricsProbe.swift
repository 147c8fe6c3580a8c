import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads the running daemon's HTTP API over a plain socket on 127.0.0.1 (the streaming run checks that
/// every exchange's frames became quotes in the engine, not just that they were sent).
enum MetricsProbe {
    /// A port free right now on 127.0.0.1 (bound to 0, read, closed; the daemon binds it a moment later).
    static func freePort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// `GET path` on 127.0.0.1:`port`; the body, or nil.
    static func get(port: Int, path: String) -> String? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return nil }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            response += chunk[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        return String(text[split.upperBound...])
    }

    /// From `/api/v1/status`: per exchange, how many premium sides (high or low) show a quote timed after
    /// `since` (the feeder's start plus a margin: with every stream live, REST is paused, so those came
    /// from frames), and the transport each source reports.
    static func streamSides(port: Int, since: Date) -> (sides: [String: Int], transports: [String: String])? {
        let times = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        guard let body = get(port: port, path: "/api/v1/status"),
              let document = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        else { return nil }
        var sides: [String: Int] = [:]
        for row in document["premium"] as? [[String: Any]] ?? [] {
            for side in ["high", "low"] {
                guard let quote = row[side] as? [String: Any], let exchange = quote["exchange"] as? String else { continue }
                guard let text = quote["at"] as? String, let at = try? times.parse(text), at >= since else { continue }
                sides[exchange, default: 0] += 1
            }
        }
        var transports: [String: String] = [:]
        for source in document["sources"] as? [[String: Any]] ?? [] {
            if let name = source["name"] as? String, let transport = source["transport"] as? String { transports[name] = transport }
        }
        return (sides, transports)
    }
}
