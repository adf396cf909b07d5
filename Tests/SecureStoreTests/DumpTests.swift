import Foundation
import SecureStore
import XCTest

/// Text dumps (`dumpSQL`, `dumpRequest`, `dumpTables`, `dumpContent`,
/// `dumpSchema`) in each format, on an encrypted file.
final class DumpTests: SecureStoreTestCase {
    private final class Text: TextOutputStream {
        var value = ""
        func write(_ string: String) { value += string }
    }

    private struct Shelf: Codable, FetchableRecord, PersistableRecord {
        static let books = hasMany(Book.self)
        var id: Int64
        var label: String
    }

    private struct Book: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        var shelfId: Int64?
        var title: String
        var cover: Data?
    }

    private func library() throws -> DatabaseQueue {
        let dbQueue = try makeEncryptedQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("library") { db in
            try db.create(table: "shelf") { t in
                t.primaryKey("id", .integer)
                t.column("label", .text).notNull()
            }
            try db.create(table: "book") { t in
                t.primaryKey("id", .integer)
                t.belongsTo("shelf")
                t.column("title", .text).notNull()
                t.column("cover", .blob)
            }
            try Shelf(id: 1, label: "Poetry").insert(db)
            try Shelf(id: 2, label: "Prose").insert(db)
            try Book(id: 1, shelfId: 2, title: "Moby-Dick", cover: Data([0x80, 0x01])).insert(db)
            try Book(id: 2, shelfId: 1, title: "Leaves of Grass", cover: nil).insert(db)
            try Book(id: 3, shelfId: nil, title: "It's \"odd\"", cover: Data("png".utf8)).insert(db)
        }
        try migrator.migrate(dbQueue)
        return dbQueue
    }

    private func dump(_ dbQueue: DatabaseQueue, _ body: (Database, Text) throws -> Void) throws -> String {
        let text = Text()
        try dbQueue.read { db in try body(db, text) }
        return text.value
    }

    func testFormatsOfOneQuery() throws {
        let dbQueue = try library()
        let sql: SQL = "SELECT id, title, cover FROM book ORDER BY id"
        XCTAssertEqual(try dump(dbQueue) { db, out in try db.dumpSQL(sql, to: out) }, """
            1|Moby-Dick|X'8001'
            2|Leaves of Grass|
            3|It's "odd"|png

            """)
        XCTAssertEqual(try dump(dbQueue) { db, out in try db.dumpSQL(sql, format: .list(header: true, nullValue: "∅"), to: out) }, """
            id|title|cover
            1|Moby-Dick|\u{FFFD}\u{01}
            2|Leaves of Grass|∅
            3|It's "odd"|png

            """)
        XCTAssertEqual(try dump(dbQueue) { db, out in try db.dumpSQL(sql, format: .quote(), to: out) }, """
            1,'Moby-Dick',X'8001'
            2,'Leaves of Grass',NULL
            3,'It''s "odd"',X'706E67'

            """)
        XCTAssertEqual(try dump(dbQueue) { db, out in
            try db.dumpSQL("SELECT id, title FROM book WHERE id < 3 ORDER BY id", format: .line(nullValue: "NULL"), to: out)
        }, """
               id = 1
            title = Moby-Dick

               id = 2
            title = Leaves of Grass

            """)
        XCTAssertEqual(try dump(dbQueue) { db, out in try db.dumpSQL(sql, format: .json(), to: out) }, """
            [{"id":1,"title":"Moby-Dick","cover":"gAE="},
            {"id":2,"title":"Leaves of Grass","cover":null},
            {"id":3,"title":"It's \\"odd\\"","cover":"cG5n"}]

            """)
        XCTAssertEqual(try dump(dbQueue) { db, out in try db.dumpSQL("SELECT * FROM book WHERE 0", format: .json(), to: out) }, "[]\n")
        XCTAssertEqual(try dump(dbQueue) { db, out in try db.dumpSQL("SELECT * FROM book WHERE 0", format: .debug(header: true), to: out) }, "")
    }

    func testRequestWithPrefetchedAssociation() throws {
        let dbQueue = try library()
        let request = Shelf.orderByPrimaryKey().including(all: Shelf.books.orderByPrimaryKey())
        XCTAssertEqual(try dump(dbQueue) { db, out in try db.dumpRequest(request, to: out) }, """
            1|Poetry
            2|Prose

            books
            1|2|Moby-Dick|X'8001'
            2|1|Leaves of Grass|

            """, "the association's rows, without the columns SecureStore adds to group them")
    }

    func testTablesContentAndSchemaLeaveTheMigrationHistoryOut() throws {
        let dbQueue = try library()
        XCTAssertEqual(try dump(dbQueue) { db, out in try db.dumpTables(["shelf"], to: out) }, "1|Poetry\n2|Prose\n")
        XCTAssertEqual(try dump(dbQueue) { db, out in try db.dumpTables(["shelf"], tableHeader: .always, to: out) }, "shelf\n1|Poetry\n2|Prose\n")
        let content = try dump(dbQueue) { db, out in try db.dumpContent(to: out) }
        XCTAssertEqual(content, """
            sqlite_master
            CREATE TABLE "book" ("id" INTEGER PRIMARY KEY, "shelfId" INTEGER REFERENCES "shelf"("id"), "title" TEXT NOT NULL, "cover" BLOB);
            CREATE INDEX "book_on_shelfId" ON "book"("shelfId");
            CREATE TABLE "shelf" ("id" INTEGER PRIMARY KEY, "label" TEXT NOT NULL);

            book
            1|2|Moby-Dick|X'8001'
            2|1|Leaves of Grass|
            3||It's "odd"|png

            shelf
            1|Poetry
            2|Prose

            """)
        XCTAssertFalse(content.contains("securestore_migrations"))
        XCTAssertTrue(try dump(dbQueue) { db, out in try db.dumpSchema(to: out) }.hasPrefix("sqlite_master\nCREATE TABLE \"book\""))
    }

    func testViewPrimaryKeyFromASchemaSource() throws {
        struct Keys: DatabaseSchemaSource {
            func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
                view.name == "titled" ? ["id"] : nil
            }
        }
        var config = keyedConfiguration(passphrase: "views")
        config.schemaSource = Keys()
        let dbQueue = try DatabaseQueue(path: path("views.db"), configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT);
                INSERT INTO book VALUES (2, 'B'), (1, 'A');
                CREATE VIEW titled AS SELECT id, title FROM book ORDER BY title DESC;
                CREATE VIEW untitled AS SELECT id FROM book;
                """)
            XCTAssertEqual(try db.primaryKey("titled").columns, ["id"])
            XCTAssertThrowsError(try db.primaryKey("untitled"))
            let text = Text()
            try db.dumpTables(["titled"], stableOrder: true, to: text)
            XCTAssertEqual(text.value, "1|A\n2|B\n", "stable order: the view's primary key")
        }
    }

    func testFTS4TableKeptInStepWithItsContentTable() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.create(table: "note") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("body", .text)
            }
            try db.execute(sql: "INSERT INTO note (body) VALUES ('encrypted full text search')")
            try db.create(virtualTable: "note_ft", using: FTS4()) { t in
                t.synchronize(withTable: "note")
                t.tokenizer = .porter
                t.column("body")
            }
            let matches = { (word: String) in try Int.fetchOne(db, sql: "SELECT count(*) FROM note_ft WHERE note_ft MATCH ?", arguments: [word]) }
            XCTAssertEqual(try matches("search"), 1, "filled from the content table")
            try db.execute(sql: "UPDATE note SET body = 'searching notes'")
            XCTAssertEqual(try matches("full"), 0)
            XCTAssertEqual(try matches("search"), 1, "porter: searching matches search")
            try db.execute(sql: "DELETE FROM note")
            XCTAssertEqual(try matches("search"), 0)
            let triggers = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
            XCTAssertEqual(triggers, ["__note_ft_ai", "__note_ft_au", "__note_ft_bd", "__note_ft_bu"])
            try db.drop(table: "note_ft")
            try db.dropFTS4SynchronizationTriggers(forTable: "note_ft")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'"), 0)
        }
        // The full-text index is in the encrypted file too: no plaintext.
        try dbQueue.close()
        XCTAssertNil(try fileBytes(path("db.sqlite")).range(of: Data("searching".utf8)))
    }

    /// A full-text table keeps its data in shadow tables (`note_ft_content`,
    /// `_segments`...): dumps leave them out where SQLite can name them
    /// (3.37), as GRDB's do.
    func testDumpsLeaveShadowTablesOut() throws {
        guard Database.sqliteLibVersionNumber >= 3_037_000 else {
            throw XCTSkip("SQLite \(Database.sqliteLibVersion) cannot tell shadow tables apart (PRAGMA table_list: 3.37)")
        }
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.create(virtualTable: "note_ft", using: FTS4()) { t in t.column("body") }
            try db.execute(sql: "INSERT INTO note_ft(body) VALUES ('hello')")
        }
        let schema = Text()
        try dbQueue.read { db in try db.dumpSchema(to: schema) }
        XCTAssertEqual(schema.value, "sqlite_master\nCREATE VIRTUAL TABLE \"note_ft\" USING fts4(body);\n")
        let content = Text()
        try dbQueue.read { db in try db.dumpContent(to: content) }
        XCTAssertFalse(content.value.contains("note_ft_content"), content.value)
        XCTAssertTrue(content.value.contains("hello"), content.value)
    }
}
