// Shared by securestore-benchmark and grdb-comparison (a symbolic link
// there): the same rows, the same floor.

/// The row of every workload: `item(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL)`.
struct Item: Codable, Equatable {
    var id: Int64
    var a: Int64
    var b: String
    var c: Double
}

let createTable = "CREATE TABLE item (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL)"

func makeItems(count: Int) -> [Item] {
    (1...count).map { i in
        // b: 20 characters.
        let digits = String(i)
        let b = "item-" + String(repeating: "0", count: 15 - digits.count) + digits
        return Item(id: Int64(i), a: Int64(i % 1000), b: b, c: Double(i) * 0.25)
    }
}
