import Foundation
import SecureStore
import XCTest

/// Key material is zeroed when released, and never printed.
final class SecretBytesTests: XCTestCase {
    func testStorageIsZeroedWhenReleased() throws {
        let observed = Observed()
        SecretBytes.wipeObserver = { observed.storages.append($0) }
        defer { SecretBytes.wipeObserver = nil }
        do {
            let secret = SecretBytes(Array("correct horse battery staple".utf8))
            XCTAssertEqual(secret.withData { String(decoding: $0, as: UTF8.self) }, "correct horse battery staple")
            XCTAssertEqual("\(secret)", "<secret, 28 bytes>")
            XCTAssertEqual(CipherKey(passphrase: "a passphrase").description.contains("a passphrase"), false)
        }
        // Both secrets above (the SecretBytes and the CipherKey's) are gone.
        XCTAssertEqual(observed.storages.map(\.count).sorted(), [12, 28])
        for storage in observed.storages {
            XCTAssertTrue(storage.allSatisfy { $0 == 0 }, "released key material was not zeroed")
        }
    }
}

extension SecretBytesTests {
    /// The kernel's own view of the pages (`/proc/self/smaps`): locked in
    /// RAM (`lo`) and left out of core dumps (`dd`).
    func testThePagesAreLockedAndLeftOutOfCoreDumps() throws {
        let secret = SecretBytes(capacity: 100) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0x5a)
            return 100
        }
        XCTAssertEqual(secret.count, 100)
        XCTAssertTrue(secret.isLockedInMemory)
        XCTAssertTrue(secret.isExcludedFromCoreDumps)
        let address = secret.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        // Read to the end: a /proc file reports a size of 0.
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        try handle.close()
        var flags: [Substring]?
        var inMapping = false
        for line in smaps.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), let space = line.firstIndex(of: " "), dash < space,
               let start = UInt(line[..<dash], radix: 16), let end = UInt(line[line.index(after: dash)..<space], radix: 16) {
                inMapping = (start..<end).contains(address)
            } else if inMapping, line.hasPrefix("VmFlags:") {
                flags = line.dropFirst("VmFlags:".count).split(separator: " ")
            }
        }
        let found = try XCTUnwrap(flags, "no mapping holds the secret")
        XCTAssertTrue(found.contains("dd"), "not left out of core dumps: \(found)")
        // The sanitizers' runtimes replace mlock with a no-op that succeeds
        // (their shadow memory could not be locked): only an ordinary build
        // shows the lock.
        let process = dlopen(nil, RTLD_NOW)
        if dlsym(process, "__asan_init") == nil && dlsym(process, "__tsan_init") == nil {
            XCTAssertTrue(found.contains("lo"), "not locked: \(found)")
        }
        withExtendedLifetime(secret) {}
    }

    /// A variable taken from the environment: its bytes, then zeros where
    /// the environment held them, and no variable.
    func testTakingAnEnvironmentVariable() throws {
        setenv("SECURESTORE_TEST_SECRET", "environment secret", 1)
        let held = try XCTUnwrap(getenv("SECURESTORE_TEST_SECRET"))
        let secret = try XCTUnwrap(SecretBytes.takingEnvironmentVariable("SECURESTORE_TEST_SECRET"))
        XCTAssertEqual(secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }, "environment secret")
        XCTAssertNil(getenv("SECURESTORE_TEST_SECRET"))
        XCTAssertNil(ProcessInfo.processInfo.environment["SECURESTORE_TEST_SECRET"])
        // glibc keeps the string setenv made: the value's bytes are zeros now.
        XCTAssertTrue(UnsafeRawBufferPointer(start: held, count: 18).allSatisfy { $0 == 0 })
        XCTAssertNil(SecretBytes.takingEnvironmentVariable("SECURESTORE_TEST_SECRET"), "gone")
    }
}

private final class Observed: @unchecked Sendable {
    var storages: [[UInt8]] = []
}
