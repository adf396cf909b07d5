/// SQL white space and comments, skipped without SQLite (the migration
/// file parser reports lines from offsets with it).
enum SQLText {
    /// True if `sql` holds more than white space, comments and semicolons.
    static func containsStatement(_ sql: String) -> Bool {
        let bytes = Array(sql.utf8)
        return firstStatementOffset(in: bytes, from: 0) < bytes.count
    }

    /// `sql` without the white space and comments before its first statement.
    static func droppingLeadingComments(_ sql: String) -> String {
        let bytes = Array(sql.utf8)
        return String(decoding: bytes[firstStatementOffset(in: bytes, from: 0)...], as: UTF8.self)
    }


    static func firstStatementOffset(in bytes: [UInt8], from offset: Int) -> Int {
        var index = offset
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
                || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: ";") {
                index += 1
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                index += 2
                while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    index += 1
                }
                index = min(index + 2, bytes.count)
            } else {
                return index
            }
        }
        return bytes.count
    }
}
