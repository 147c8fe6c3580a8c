/// One scan per byte: walks that hand each member or element to their body before its end is known, for
/// the messages whose values are containers inside containers (order books: `data` → row → `asks` → level).
///
/// `members(ofObjectAt:)` and `elements(ofArrayAt:)` find a container value's end by scanning it before the
/// body sees it; a body that then walks the container scans its bytes again, so each byte of a book level
/// was read once per enclosing container (3 times in Upbit's `orderbook_units`, 5 in OKX's `books`). Here a
/// container value is handed over unscanned (its `end` is its `start`: not known yet) and the body says
/// what it did with it (`Step`): walked it itself (its walk's end is where the walk goes on), or left it to
/// be skipped, once. Scalars (strings, numbers, literals) come with their end, as before. Malformed input
/// makes a walk return nil, as the other walks do; so does a body's `stop`.
extension JSONBytes {
    /// What a walk's body did with the value it was handed.
    package enum Step {
        /// Go on after the value (a container the body did not walk is skipped: one scan).
        case next
        /// The body walked the container itself (`walkMembers`/`walkElements` on its `start`); the walk's
        /// result is where this walk goes on (nil: it was malformed or stopped, and so is this walk).
        case walked(Int?)
        /// Stop: the walk returns nil.
        case stop
    }

    /// Calls `body(keyStart, keyEnd, value)` for each member of the object whose `{` is at `index`, a
    /// container value unscanned (see the extension's doc). Returns the index after the closing `}`, or nil
    /// when malformed or stopped.
    package func walkMembers(ofObjectAt index: Int, depth: Int = 0, _ body: (Int, Int, Value) -> Step) -> Int? {
        guard depth < Self.maximumDepth, index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        var cursor = skipSpace(index + 1)
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "}") { return cursor + 1 }
        while cursor < bytes.count {
            guard bytes[cursor] == UInt8(ascii: "\""), let keyEnd = stringEnd(from: cursor + 1) else { return nil }
            let keyStart = cursor + 1
            cursor = skipSpace(keyEnd + 1)
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else { return nil }
            guard let next = step(at: skipSpace(cursor + 1), depth: depth, { body(keyStart, keyEnd, $0) }) else { return nil }
            cursor = skipSpace(next)
            guard cursor < bytes.count else { return nil }
            if bytes[cursor] == UInt8(ascii: "}") { return cursor + 1 }
            guard bytes[cursor] == UInt8(ascii: ",") else { return nil }
            cursor = skipSpace(cursor + 1)
        }
        return nil
    }

    /// Calls `body` for each element of the array whose `[` is at `index`; same contract as `walkMembers`.
    package func walkElements(ofArrayAt index: Int, depth: Int = 0, _ body: (Value) -> Step) -> Int? {
        guard depth < Self.maximumDepth, index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        var cursor = skipSpace(index + 1)
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "]") { return cursor + 1 }
        while cursor < bytes.count {
            guard let next = step(at: cursor, depth: depth, body) else { return nil }
            cursor = skipSpace(next)
            guard cursor < bytes.count else { return nil }
            if bytes[cursor] == UInt8(ascii: "]") { return cursor + 1 }
            guard bytes[cursor] == UInt8(ascii: ",") else { return nil }
            cursor = skipSpace(cursor + 1)
        }
        return nil
    }

    /// Hands the value at `index` to `body` and returns the index after it (nil: malformed or stopped).
    @inline(__always)
    private func step(at index: Int, depth: Int, _ body: (Value) -> Step) -> Int? {
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
            switch body(Value(start: index, end: index, kind: byte == UInt8(ascii: "{") ? .object : .array)) {
            case .next: return value(at: index, depth: depth)?.1
            case .walked(let end): return end
            case .stop: return nil
            }
        }
        guard let (value, next) = value(at: index, depth: depth) else { return nil }
        switch body(value) {
        case .next, .walked: return next
        case .stop: return nil
        }
    }

    /// The first two elements of the array at `value` (a `[price, size, …]` level), walked once to its end
    /// (a container element comes unscanned, as in every walk here); nil when `value` is not an array of at
    /// least two elements, or is malformed. `end`: the index after the array.
    package func pair(_ value: Value) -> (first: Value, second: Value, end: Int)? {
        guard value.kind == .array else { return nil }
        var first: Value?
        var second: Value?
        var count = 0
        let end = walkElements(ofArrayAt: value.start) { element in
            if count == 0 { first = element } else if count == 1 { second = element }
            count += 1
            return .next
        }
        guard let end, let first, let second else { return nil }
        return (first, second, end)
    }
}
