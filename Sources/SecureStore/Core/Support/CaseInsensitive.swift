/// SQLite compares identifiers (table and column names) ignoring the case
/// of ASCII letters. This does the same without Foundation's locale-aware
/// comparison, which dominated record inserts in profiles; names with
/// other letters fall back to Unicode lowercasing.
extension String {
    package func isEqualIgnoringCase(_ other: String) -> Bool {
        if self == other { return true }
        var lhs = self, rhs = other
        let outcome: Bool? = lhs.withUTF8 { a in
            rhs.withUTF8 { b in
                if a.count != b.count {
                    // Only a non-ASCII letter can change length when folded.
                    return a.contains { $0 >= 0x80 } || b.contains { $0 >= 0x80 } ? nil : false
                }
                for index in 0..<a.count where a[index] != b[index] {
                    let x = a[index], y = b[index]
                    if x >= 0x80 || y >= 0x80 { return nil }
                    if Self.asciiLower(x) != Self.asciiLower(y) { return false }
                }
                return true
            }
        }
        return outcome ?? (lowercased() == other.lowercased())
    }

    @inline(__always)
    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}

/// An identifier (a table or column name) that keeps its case and compares
/// ignoring it, as SQLite does: `Player` and `player` are the same table.
struct CaseInsensitiveIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The identifier as written.
    let rawValue: String
    private let folded: String

    init(rawValue: String) {
        self.rawValue = rawValue
        folded = rawValue.lowercased()
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.folded == rhs.folded }

    func hash(into hasher: inout Hasher) { hasher.combine(folded) }

    var description: String { rawValue }
}
