import Foundation

/// A migration read from SQL files.
///
/// The layout of a migrations directory:
///
/// ```
/// migrations/
///   0001_Zalora-v1.up.sql      required: the forward step
///   0001_Zalora-v1.down.sql    optional: the rollback step
///   0002_Zalora-v2.up.sql
///   0002_Zalora-v2.down.sql
/// ```
///
/// A file name is `<number>_<identifier>.up.sql` or `.down.sql`. Migrations
/// run in the order of their numbers (gaps are allowed); the identifier is
/// what the history records. Other files (README, hidden files) are
/// ignored. Each file holds one or more SQL statements, run in one
/// transaction.
public struct SQLMigrationFile: Sendable, Hashable {
    /// The number that orders the migration.
    public var number: Int
    /// The identifier, from the file name: "Zalora-v1".
    public var identifier: String
    /// The up file.
    public var upURL: URL
    /// The up SQL.
    public var upSQL: String
    /// The down file, if any.
    public var downURL: URL?
    /// The down SQL, if any.
    public var downSQL: String?

    /// SHA-256 of the up file's bytes: the history keeps it to notice a file
    /// edited after it was applied.
    public var checksum: String { SHA256Digest.hex(of: upSQL) }

    /// Reads every migration of a directory, in order.
    ///
    /// Throws ``MigrationError/malformedFile(path:line:reason:)`` for a
    /// missing directory, a `.sql` file whose name does not follow the
    /// layout, a down file without an up file, two files for the same
    /// number or identifier, a file that is not UTF-8, or an up file with no
    /// statement.
    public static func load(directory: URL) throws -> [SQLMigrationFile] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MigrationError.malformedFile(path: directory.path, line: 0, reason: "no such migrations directory")
        }
        var contents: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where !name.hasPrefix(".") && name.hasSuffix(".sql") {
            let url = directory.appendingPathComponent(name)
            do {
                contents[name] = try Data(contentsOf: url)
            } catch {
                throw MigrationError.malformedFile(path: url.path, line: 0, reason: "cannot read the file")
            }
        }
        return try parse(files: contents, directory: directory)
    }

    /// The checks of ``load(directory:)`` on file names and contents
    /// already read (the fuzzed part of loading).
    package static func parse(files contents: [String: Data], directory: URL) throws -> [SQLMigrationFile] {
        let names = contents.keys.sorted()
        var ups: [Int: (identifier: String, url: URL)] = [:]
        var downs: [Int: (identifier: String, url: URL)] = [:]
        var numberOfIdentifier: [String: (Int, URL)] = [:]

        for name in names where !name.hasPrefix(".") && name.hasSuffix(".sql") {
            let url = directory.appendingPathComponent(name)
            guard let parsed = parseName(name) else {
                throw MigrationError.malformedFile(
                    path: url.path, line: 0,
                    reason: "file name does not follow <number>_<identifier>.up.sql or .down.sql")
            }
            if let (otherNumber, otherURL) = numberOfIdentifier[parsed.identifier], otherNumber != parsed.number {
                throw MigrationError.malformedFile(
                    path: url.path, line: 0,
                    reason: "duplicate identifier \"\(parsed.identifier)\" (also in \(otherURL.lastPathComponent))")
            }
            numberOfIdentifier[parsed.identifier] = (parsed.number, url)
            if parsed.isUp {
                if let other = ups[parsed.number] {
                    throw MigrationError.malformedFile(
                        path: url.path, line: 0,
                        reason: "duplicate migration number \(parsed.number) (also in \(other.url.lastPathComponent))")
                }
                ups[parsed.number] = (parsed.identifier, url)
            } else {
                if let other = downs[parsed.number] {
                    throw MigrationError.malformedFile(
                        path: url.path, line: 0,
                        reason: "duplicate migration number \(parsed.number) (also in \(other.url.lastPathComponent))")
                }
                downs[parsed.number] = (parsed.identifier, url)
            }
        }

        for (number, down) in downs {
            guard let up = ups[number] else {
                throw MigrationError.malformedFile(path: down.url.path, line: 0, reason: "down file without an up file")
            }
            guard up.identifier == down.identifier else {
                throw MigrationError.malformedFile(
                    path: down.url.path, line: 0,
                    reason: "number \(number) names \"\(up.identifier)\" in its up file but \"\(down.identifier)\" here")
            }
        }

        func readSQL(_ url: URL) throws -> String {
            guard let text = String(validating: contents[url.lastPathComponent] ?? Data(), as: UTF8.self) else {
                throw MigrationError.malformedFile(path: url.path, line: 0, reason: "the file is not UTF-8 text")
            }
            return text
        }
        return try ups.sorted { $0.key < $1.key }.map { number, up in
            let (identifier, upURL) = up
            let upSQL = try readSQL(upURL)
            guard containsStatement(upSQL) else {
                throw MigrationError.malformedFile(path: upURL.path, line: 1, reason: "the up file has no SQL statement")
            }
            let downURL = downs[number]?.url
            return SQLMigrationFile(number: number, identifier: identifier, upURL: upURL, upSQL: upSQL,
                                    downURL: downURL, downSQL: try downURL.map(readSQL))
        }
    }

    private static func parseName(_ name: String) -> (number: Int, identifier: String, isUp: Bool)? {
        let isUp: Bool
        let stem: Substring
        if name.hasSuffix(".up.sql") {
            isUp = true
            stem = name.dropLast(".up.sql".count)
        } else if name.hasSuffix(".down.sql") {
            isUp = false
            stem = name.dropLast(".down.sql".count)
        } else {
            return nil
        }
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let identifier = stem[stem.index(after: underscore)...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
              let number = Int(digits), !identifier.isEmpty,
              !identifier.contains(where: { $0.isWhitespace || $0.isNewline })
        else { return nil }
        return (number, String(identifier), isUp)
    }

    /// True if `sql` holds more than white space and comments.
    package static func containsStatement(_ sql: String) -> Bool {
        SQLText.containsStatement(sql)
    }

    /// The 1-based line of the statement that starts at (or after the white
    /// space and comments that follow) a UTF-8 offset.
    package static func line(in sql: String, atOffset offset: Int) -> Int {
        let bytes = Array(sql.utf8)
        let start = SQLText.firstStatementOffset(in: bytes, from: max(0, min(offset, bytes.count)))
        return bytes[..<start].reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }
}
