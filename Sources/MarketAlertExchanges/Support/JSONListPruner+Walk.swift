import Foundation

/// The pruner's walk of the document: down `listPath` to the list, then each element, keeping those whose
/// `keyField` is wanted (values it does not descend into are skipped by `JSONListPruner+Values`).
extension JSONListPruner.Scanner {
    mutating func scanDocument(
        listPath: [[UInt8]], keyField: [UInt8], keep: (String) -> Bool
    ) throws(SyntaxError) -> ListScan? {
        skipWhitespace()
        guard index < bytes.count else { throw SyntaxError(reason: "empty body", offset: 0) }
        let list = try walk(listPath[...], keyField: keyField, keep: keep)
        skipWhitespace()
        guard index == bytes.count else { throw unexpected("trailing characters after the JSON value") }
        return list
    }

    /// Scans the value at `index`, descending along `path`; returns the list scan if the path ends on an array.
    mutating func walk(
        _ path: ArraySlice<[UInt8]>, keyField: [UInt8], keep: (String) -> Bool
    ) throws(SyntaxError) -> ListScan? {
        guard let component = path.first else {
            guard peek() == UInt8(ascii: "[") else {
                try skipValue()
                return nil
            }
            return try scanList(keyField: keyField, keep: keep)
        }
        guard peek() == UInt8(ascii: "{") else {
            try skipValue()
            return nil
        }
        index += 1
        var found: ListScan?
        var descended = false
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return nil
        }
        while true {
            skipWhitespace()
            let key = try scanString()
            try expectColon()
            skipWhitespace()
            if !descended, !key.escaped, equals(key.content, component) {
                descended = true
                found = try walk(path.dropFirst(), keyField: keyField, keep: keep)
            } else {
                try skipValue()
            }
            if try endOfMember(closing: UInt8(ascii: "}")) { return found }
        }
    }

    /// Scans an array at `index` whose elements are (normally) flat objects, choosing which to keep.
    mutating func scanList(keyField: [UInt8], keep: (String) -> Bool) throws(SyntaxError) -> ListScan {
        var list = ListScan(start: index, end: index)
        index += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            list.end = index
            return list
        }
        while true {
            skipWhitespace()
            let elementStart = index
            let wanted: Bool
            if peek() == UInt8(ascii: "{") {
                wanted = try scanElementObject(keyField: keyField, keep: keep)
            } else {
                try skipValue()
                wanted = true
            }
            list.count += 1
            if wanted { list.kept.append(elementStart..<index) }
            skipWhitespace()
            guard index < bytes.count else { throw truncated() }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "]") {
                list.end = index
                return list
            }
            index -= 1
            throw unexpected("expected ',' or ']' in the list")
        }
    }

    /// Scans one element object; returns whether to keep it (kept unless its key field is a plain unwanted string).
    mutating func scanElementObject(keyField: [UInt8], keep: (String) -> Bool) throws(SyntaxError) -> Bool {
        index += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return true
        }
        var decision: Bool?
        while true {
            skipWhitespace()
            let key = try scanString()
            try expectColon()
            skipWhitespace()
            if decision == nil, !key.escaped, equals(key.content, keyField), peek() == UInt8(ascii: "\"") {
                let value = try scanString()
                decision = value.escaped ? true : keep(text(value.content))
            } else {
                try skipValue()
            }
            if try endOfMember(closing: UInt8(ascii: "}")) { return decision ?? true }
        }
    }

    /// After a member or element: consumes `,` (returns false) or the closing bracket (returns true).
    mutating func endOfMember(closing: UInt8) throws(SyntaxError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw truncated() }
        let byte = bytes[index]
        if byte == UInt8(ascii: ",") {
            index += 1
            return false
        }
        if byte == closing {
            index += 1
            return true
        }
        throw unexpected(closing == UInt8(ascii: "}") ? "expected ',' or '}' in an object" : "expected ',' or ']'")
    }
}
