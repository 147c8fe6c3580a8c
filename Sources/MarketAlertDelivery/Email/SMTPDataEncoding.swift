/// The DATA section of a message (RFC 5321 §4.5.2): every line ends in CRLF (a bare LF or CR becomes
/// CRLF), a line that starts with `.` gets a second one (dot-stuffing), and `.` on a line of its own ends it.
package enum SMTPDataEncoding {
    package static func encode(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + message.count / 50 + 5)
        var atLineStart = true
        var index = 0
        while index < message.count {
            let byte = message[index]
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                out.append(contentsOf: [13, 10])
                // CRLF is one line break; so are a lone CR and a lone LF.
                if byte == UInt8(ascii: "\r"), index + 1 < message.count, message[index + 1] == UInt8(ascii: "\n") { index += 1 }
                atLineStart = true
            } else {
                if atLineStart, byte == UInt8(ascii: ".") { out.append(byte) }
                out.append(byte)
                atLineStart = false
            }
            index += 1
        }
        if !atLineStart { out.append(contentsOf: [13, 10]) }
        out.append(contentsOf: Array(".\r\n".utf8))
        return out
    }
}
