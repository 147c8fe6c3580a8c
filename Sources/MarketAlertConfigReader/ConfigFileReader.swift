import Foundation
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the config file's text, saying in words what is wrong with the path when it cannot: missing, a
/// directory, not readable, too large, not UTF-8. Regular files, pipes, FIFOs and `/dev/stdin` are read
/// (a stream until its end), so `marketalertd check-config --config /dev/stdin < file` works.
package enum ConfigFileReader {
    package static func read(path: String, maxBytes: Int = YAMLBudget.maxBytes) throws(ConfigError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot read \(path): \(describeOpen(errno, path: path))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("cannot read \(path): \(String(cString: strerror(errno)))") }
        let type = status.st_mode & S_IFMT
        if type == S_IFDIR {
            throw failure("\(path) is a directory; --config takes the YAML file itself (e.g. \(path)/marketalertd.yaml)")
        }
        if type == S_IFREG, Int(status.st_size) > maxBytes {
            throw failure("\(path) is \(status.st_size) bytes; a config file may be at most \(maxBytes) bytes")
        }
        let data = try readAll(descriptor, path: path, maxBytes: maxBytes)
        guard let text = String(validating: data, as: UTF8.self) else {
            throw failure("\(path) is not UTF-8 text")
        }
        return text
    }

    /// Reads until the end of the stream, refusing more than `maxBytes`.
    private static func readAll(_ descriptor: Int32, path: String, maxBytes: Int) throws(ConfigError) -> [UInt8] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                if code == EISDIR { throw failure("\(path) is a directory; --config takes the YAML file itself") }
                throw failure("cannot read \(path): \(String(cString: strerror(code)))")
            }
            data.append(contentsOf: chunk.prefix(count))
            if data.count > maxBytes {
                throw failure("\(path) is larger than \(maxBytes) bytes, the most a config file may be")
            }
        }
    }

    private static func describeOpen(_ code: Int32, path: String) -> String {
        switch code {
        case ENOENT: "no such file (check the path, or pass --config)"
        case EACCES: "permission denied: user \(userName) may not read it (check the file's and its directories' permissions)"
        case ENOTDIR: "a part of the path is not a directory"
        case ELOOP: "too many symbolic links"
        default: String(cString: strerror(code))
        }
    }

    private static var userName: String {
        let uid = getuid()
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(uid)"
    }

    private static func failure(_ message: String) -> ConfigError {
        ConfigError(issues: [ConfigIssue(path: "", message: message)])
    }
}

/// `read(2)` (the enum's own `read` hides the C function's name inside it).
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
