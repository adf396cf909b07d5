import Foundation
import SecureStore

/// The checks of `audit` on one database: its key derivation, the modes of
/// its files and folders, plaintext SQLite files and leftovers of killed
/// runs beside it, its backups, and its migration history.
struct DatabaseAudit {
    var database: String
    var key: DatabaseKey?
    var migrator: DatabaseMigrator?
    var backups: BackupStore
    private(set) var findings: [AuditFinding] = []

    init(database: String, key: DatabaseKey?, migrator: DatabaseMigrator?, backups: BackupStore) {
        self.database = database
        self.key = key
        self.migrator = migrator
        self.backups = backups
    }

    private var name: String { URL(fileURLWithPath: database).lastPathComponent }

    /// The database's folder, spelled as the database's path spells it.
    private var folder: String {
        let folder = (database as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// The folders to look into: the database's, and its backups'.
    private var folders: [String] {
        let backupFolder = backups.directory
        return URL(fileURLWithPath: backupFolder).standardizedFileURL == URL(fileURLWithPath: folder).standardizedFileURL
            ? [folder] : [folder, backupFolder]
    }

    private mutating func report(_ severity: AuditFinding.Severity, _ code: String, _ path: String, _ message: String) {
        findings.append(AuditFinding(severity: severity, code: code, path: path, message: message))
    }

    mutating func run() {
        checkModes()
        checkNeighbours()
        if Database.hasPlaintextHeader(path: database) {
            report(.error, "plaintext-database", database,
                   "a plaintext SQLite file: encrypt it with `migrate-tool encrypt \(database) --key-file ...`")
        } else {
            checkKeyAndHistory()
        }
        checkBackups()
    }

    /// Nothing wider than 0600 for files, 0700 for the folders that hold
    /// them.
    private mutating func checkModes() {
        let files = [database] + ["-wal", "-shm", "-journal"].map { database + $0 } + backups.entries().map(\.path)
        for file in files {
            guard let mode = Self.mode(of: file), mode & 0o077 != 0 else { continue }
            report(.warning, "loose-mode", file,
                   "mode \(String(mode, radix: 8)): group or others can read or write it; run chmod 600 \(file)")
        }
        for folder in folders {
            guard let mode = Self.mode(of: folder), mode & 0o077 != 0 else { continue }
            report(.warning, "loose-directory", folder,
                   "mode \(String(mode, radix: 8)): others can list or reach the database's files; run chmod 700 \(folder)")
        }
    }

    /// Plaintext SQLite files and temporary files of killed runs in the
    /// database's folder and its backup folder.
    private mutating func checkNeighbours() {
        let ownFiles = Set(["", "-wal", "-shm", "-journal"].map { name + $0 })
        for folder in folders {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            for other in names where !ownFiles.contains(other) {
                let path = folder == "." ? other : folder + "/" + other
                guard Self.mode(of: path) != nil else { continue }
                if other.hasPrefix("." + name + ".securestore-tmp-") || (other.hasPrefix(name + ".") && other.hasSuffix(".partial")) {
                    report(.warning, "leftover-temporary", path,
                           "left by a run that was killed; the next run on \(name) removes it, or remove it yourself")
                } else if Database.hasPlaintextHeader(path: path) {
                    if other.hasPrefix(name) || other.hasSuffix(".plaintext") {
                        report(.error, "plaintext-copy", path,
                               "a plaintext SQLite copy beside \(name) (a decrypt output or a kept original): remove it once it is not needed")
                    } else {
                        report(.warning, "stray-plaintext", path, "a plaintext SQLite file beside the encrypted \(name)")
                    }
                }
            }
        }
    }

    /// The key opens the file; its derivation against the guidance; the
    /// history against the migrations, when given.
    private mutating func checkKeyAndHistory() {
        guard let key else { return }
        do {
            let dbQueue = try DatabaseFile.open(database, key: key, readonly: true, busyTimeout: 5)
            defer { try? dbQueue.close() }
            try dbQueue.read { db in
                if let settings = try db.cipherSettings {
                    let derivation = KeyDerivationReport(settings, rawKey: key.isRawKey, database: database)
                    if derivation.verdict == "weak" { report(.warning, "weak-kdf", database, derivation.summary) }
                }
                guard let migrator else { return }
                let validation = try migrator.validate(db)
                var drift: [String] = []
                if !validation.checksumMismatches.isEmpty {
                    drift.append("edited after they were applied: \(validation.checksumMismatches.map(\.identifier).joined(separator: ", "))")
                }
                if !validation.superseded.isEmpty {
                    drift.append("applied but unknown to these migrations: \(validation.superseded.joined(separator: ", "))")
                }
                if validation.schemaDrift != nil { drift.append("the schema changed outside migrations") }
                if !drift.isEmpty {
                    report(.warning, "history-drift", database, drift.joined(separator: "; "))
                }
            }
        } catch {
            report(.error, "wrong-key", database, "does not open with \(key): \(ErrorMapping.toolError(error, file: database).message)")
        }
    }

    /// Every backup is encrypted and opens with the key.
    private mutating func checkBackups() {
        for backup in backups.entries() {
            if Database.hasPlaintextHeader(path: backup.path) {
                report(.error, "backup-plaintext", backup.path, "a plaintext backup of \(name): remove it, or encrypt it")
                continue
            }
            guard let key else { continue }
            do {
                let dbQueue = try DatabaseFile.open(backup.path, key: key, readonly: true, busyTimeout: 5)
                try dbQueue.close()
            } catch {
                report(.error, "backup-wrong-key", backup.path,
                       "does not open with \(key) (a backup from before a rekey?): it cannot restore \(name)")
            }
        }
    }

    /// The permission bits of a file or folder, nil when it does not exist.
    private static func mode(of path: String) -> Int? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o777)
    }
}
