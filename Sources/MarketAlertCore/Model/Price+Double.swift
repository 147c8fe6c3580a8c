import Foundation

/// A positive double's shortest round-trip text (the digits of `String(double)`, Swift's own conversion),
/// written into a stack buffer, and the `Decimal` of that text: what `Price(_: Double)` did through a `String`
/// and `Decimal(string:)`, which allocate (a VWAP's 15–17 digits do not fit a small string). The depth
/// premium makes two per observation, a book whose best price moved one per side.
enum DoubleText {
    /// The `Decimal` that `Decimal(string: String(double))` gives, built from the text's significand and
    /// exponent as `Price(bytes:)` builds it; nil when the text is not a plain positive number of at most 19
    /// significant digits (the caller then takes the `String` path).
    static func decimal(_ double: Double) -> Decimal? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Writer.capacity) { buffer in
            var writer = Writer(buffer: buffer)
            double.write(to: &writer)
            guard !writer.overflowed,
                  case .fast(let significand, let exponent)? = DecimalBytes.scan(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<writer.count]))
            else { return nil }
            return Decimal(sign: .plus, exponent: exponent, significand: Decimal(significand))
        }
    }

    /// A `TextOutputStream` into a fixed buffer. A `Double` writes its text as ASCII bytes (`_writeASCII`, the
    /// stream's requirement for exactly that) from its own stack buffer, so no `String` is made.
    struct Writer: TextOutputStream {
        /// Longer than any double's text (`-2.2250738585072014e-308` is 24 bytes).
        static let capacity = 48
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0
        var overflowed = false

        init(buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

        mutating func write(_ string: String) {
            for byte in string.utf8 { append(byte) }
        }

        mutating func _writeASCII(_ bytes: UnsafeBufferPointer<UInt8>) {
            for byte in bytes { append(byte) }
        }

        private mutating func append(_ byte: UInt8) {
            guard count < buffer.count else {
                overflowed = true
                return
            }
            buffer[count] = byte
            count += 1
        }
    }
}
