import Foundation

/// Byte copies of database files, fsynced, private (0600).
enum FileCopy {
    /// `<path>.<UTC time>.backup`, with -2, -3 ... when taken.
    static func backupPath(for path: String) -> String {
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
        var candidate = "\(path).\(stamp).backup"
        var counter = 2
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(path).\(stamp)-\(counter).backup"
            counter += 1
        }
        return candidate
    }

    /// Copies a file that nobody else writes (the caller holds the lock).
    static func backup(of path: String) throws -> String {
        let target = backupPath(for: path)
        try copy(path, to: target)
        return target
    }

    static func copy(_ source: String, to target: String) throws {
        guard let input = FileHandle(forReadingAtPath: source) else {
            throw ToolError(.ioError, "\(source): cannot read for backup")
        }
        defer { try? input.close() }
        let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ToolError(.ioError, "\(target): cannot create the backup (\(String(cString: strerror(errno))))")
        }
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                try output.write(contentsOf: chunk)
            }
            try output.synchronize()
            try output.close()
        } catch {
            try? FileManager.default.removeItem(atPath: target)
            throw ToolError(.ioError, "\(target): backup failed (\(error))")
        }
    }
}
