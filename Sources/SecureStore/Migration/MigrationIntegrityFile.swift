import Foundation

/// The integrity file of a migrations directory, `migrations.sum`: a
/// checksum per migration file, in migration order, and one over the list.
///
/// Once a directory has one, ``DatabaseMigrator/registerMigrations(from:foreignKeyChecks:verifyingIntegrity:)``
/// (and so `migrate-tool apply`, `status`, `test` and `lint`) refuses the
/// directory when its files do not match: a file edited or removed, a file
/// added without a new integrity file, or a migration numbered below one
/// that the integrity file already holds (two branches that both added
/// 0004: the second to merge is out of order). Each problem names the file.
///
/// ```swift
/// try MigrationIntegrityFile.write(directory: migrationsURL)   // migrate-tool hash DIR
/// try MigrationIntegrityFile.check(directory: migrationsURL)   // throws MigrationError.integrity
/// ```
public enum MigrationIntegrityFile {
    /// The file's name in the migrations directory.
    public static let fileName = "migrations.sum"

    private static let header = "# Written by `migrate-tool hash`: do not edit. A checksum per migration file, in order."

    /// The lines of the directory's files: `<sha256> <file name>`.
    private static func entries(_ files: [SQLMigrationFile]) -> [String] {
        files.flatMap { file in
            [(file.upURL, file.upSQL)] + (file.downURL.map { [($0, file.downSQL ?? "")] } ?? [])
        }.map { url, sql in "\(SHA256Digest.hex(of: sql)) \(url.lastPathComponent)" }
    }

    /// Writes (or replaces, crash-safely) the integrity file of `directory`,
    /// and returns its lines.
    @discardableResult
    public static func write(directory: URL) throws -> [String] {
        let lines = entries(try SQLMigrationFile.load(directory: directory))
        let text = ([header, "sum " + SHA256Digest.hex(of: lines.joined(separator: "\n"))] + lines)
            .joined(separator: "\n") + "\n"
        try PrivateFile.replace(directory.appendingPathComponent(fileName).path, with: Data(text.utf8))
        return lines
    }

    /// Throws ``MigrationError/integrity(directory:problems:)`` when the
    /// files of `directory` do not match its integrity file; does nothing
    /// for a directory without one.
    public static func check(directory: URL) throws {
        let url = directory.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { return }
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        var problems: [String] = []
        guard let sumLine = lines.first, sumLine.hasPrefix("sum ") else {
            throw MigrationError.integrity(directory: directory.path, problems: ["\(fileName) is not an integrity file"])
        }
        let recorded = Array(lines.dropFirst())
        if String(sumLine.dropFirst(4)) != SHA256Digest.hex(of: recorded.joined(separator: "\n")) {
            problems.append("\(fileName) itself was edited")
        }
        var recordedSums: [String: String] = [:]
        for line in recorded {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 { recordedSums[parts[1]] = parts[0] }
        }
        let files = try SQLMigrationFile.load(directory: directory)
        let current = Dictionary(entries(files).map { line -> (String, String) in
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            return (parts[1], parts[0])
        }, uniquingKeysWith: { first, _ in first })
        let recordedNumbers = recordedSums.keys.compactMap { Int($0.prefix { $0.isNumber }) }
        for name in recordedSums.keys.sorted() where current[name] == nil {
            problems.append("\(name) was removed")
        }
        for name in current.keys.sorted() {
            guard let sum = recordedSums[name] else {
                let number = Int(name.prefix { $0.isNumber }) ?? 0
                if let highest = recordedNumbers.max(), number < highest, !recordedNumbers.contains(number) {
                    problems.append("\(name) is out of order: it is numbered below migrations already in \(fileName) (up to \(highest))")
                } else {
                    problems.append("\(name) is not in \(fileName)")
                }
                continue
            }
            if sum != current[name] { problems.append("\(name) was edited") }
        }
        if !problems.isEmpty { throw MigrationError.integrity(directory: directory.path, problems: problems) }
    }
}
