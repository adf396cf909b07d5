import Foundation
@testable import SecureStore
import TestSupport
import XCTest

/// The page cache advice of a crash-safe export that replaces a large file,
/// read back with `mincore(2)` on a real file.
final class SourceCacheReleaseTests: SecureStoreTestCase {
    private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    func testPagesOfTheSourceLeaveTheCacheAsTheCopyGrowsThenAllOfThem() throws {
        let size = 8 << 20
        let source = path("source.db")
        try makeCachedFile(source, bytes: size)
        XCTAssertEqual(try residentFraction(source, range: 0..<size), 1, accuracy: 0.01,
                       "a file just written and read is in the page cache")

        // A copy that has reached half the source's size.
        let copy = path("copy.db")
        XCTAssertTrue(FileManager.default.createFile(atPath: copy, contents: Data(count: size / 2)))
        let release = try XCTUnwrap(SourceCacheRelease(source: source, copy: copy, memory: 1, margin: 0))
        let deadline = Date() + 10
        while try residentFraction(source, range: 0..<size / 2) > 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(try residentFraction(source, range: 0..<size / 2), 0, "the copied half left the cache")
        XCTAssertEqual(try residentFraction(source, range: size / 2..<size), 1, accuracy: 0.01,
                       "the half not yet copied stays in the cache")

        release.finish()
        XCTAssertEqual(try residentFraction(source, range: 0..<size), 0, "the whole source left the cache")
        release.finish()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: source)).count, size, "the advice changes no data")
    }

    func testAFileThatFitsBesideItsCopyIsLeftAlone() throws {
        let source = path("small.db")
        try makeCachedFile(source, bytes: 1 << 20)
        XCTAssertNil(SourceCacheRelease(source: source, copy: path("copy.db"), memory: 4 << 20))
        let release = try XCTUnwrap(SourceCacheRelease(source: source, copy: path("copy.db"), memory: 3 << 20))
        release.finish()
        XCTAssertNil(SourceCacheRelease(source: path("missing.db"), copy: path("copy.db"), memory: 1),
                     "a source that cannot be opened")
    }

    /// Closing a descriptor of a file drops the process's POSIX locks on
    /// it: the release never opens one while a connection of the process
    /// holds a lock on the file, and never closes one then.
    func testTheLocksOfAnotherConnectionOfTheProcessAreKept() throws {
        let source = path("wal.db")
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        // In WAL mode a connection holds a shared lock on the file for as
        // long as it is open, once it has read.
        func openAndRead() throws -> DatabaseQueue {
            let dbQueue = try DatabaseQueue(path: source, configuration: config)
            try dbQueue.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS t(a)") }
            _ = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
            return dbQueue
        }
        /// Whether another process can take the file out of WAL mode (it
        /// needs an exclusive lock).
        func anotherProcessLeavesWAL() throws -> Bool {
            let result = try CommandLineClient.sqlcipher(source, preamble: "", sql: "PRAGMA journal_mode = DELETE;")
            return result.stdout.contains("delete")
        }

        var dbQueue: DatabaseQueue? = try openAndRead()
        XCTAssertFalse(try anotherProcessLeavesWAL(), "the connection's lock is held")
        XCTAssertNil(SourceCacheRelease(source: source, copy: path("copy.db"), memory: 1),
                     "no descriptor while a connection of the process holds a lock")
        XCTAssertFalse(try anotherProcessLeavesWAL(), "the connection's lock is still held")
        try dbQueue?.close()
        dbQueue = nil

        let release = try XCTUnwrap(SourceCacheRelease(source: source, copy: path("copy.db"), memory: 1))
        dbQueue = try openAndRead()
        release.finish()
        XCTAssertFalse(try anotherProcessLeavesWAL(), "finish() kept the lock of the connection opened meanwhile")
        try dbQueue?.close()
        XCTAssertTrue(try anotherProcessLeavesWAL(), "with every connection closed, another process takes the lock")
    }

    /// Writes `bytes` bytes to `path`, flushes them to the disk (the system
    /// drops only clean pages) and reads them back.
    private func makeCachedFile(_ path: String, bytes: Int) throws {
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(fsync(descriptor), 0)
        close(descriptor)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, bytes)
    }

    /// The part of `range` (bytes, page-aligned) of `path` in the page cache.
    private func residentFraction(_ path: String, range: Range<Int>) throws -> Double {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw POSIXError(.ENOENT) }
        defer { close(descriptor) }
        let mapped = try XCTUnwrap(mmap(nil, range.count, PROT_READ, MAP_SHARED, descriptor, off_t(range.lowerBound)))
        XCTAssertNotEqual(mapped, MAP_FAILED)
        defer { munmap(mapped, range.count) }
        var pages = [UInt8](repeating: 0, count: range.count / pageSize)
        XCTAssertEqual(mincore(mapped, range.count, &pages), 0)
        return Double(pages.filter { $0 & 1 != 0 }.count) / Double(pages.count)
    }
}
