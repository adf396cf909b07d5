/// SQLite compares identifiers (table and column names) ignoring the case
/// of ASCII letters only. This does the same, without Foundation's
/// locale-aware comparison, which dominated record inserts in profiles.
extension String {
    package func isEqualIgnoringCase(_ other: String) -> Bool {
        if self == other { return true }
        if utf8.count != other.utf8.count {
            // Lengths may differ only when non-ASCII letters change size.
            guard !utf8.allSatisfy({ $0 < 0x80 }) || !other.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
            return lowercased() == other.lowercased()
        }
        var rhs = other.utf8.makeIterator()
        for a in utf8 {
            guard let b = rhs.next() else { return false }
            if a == b { continue }
            if a >= 0x80 || b >= 0x80 { return lowercased() == other.lowercased() }
            if Self.asciiLower(a) != Self.asciiLower(b) { return false }
        }
        return true
    }

    @inline(__always)
    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
