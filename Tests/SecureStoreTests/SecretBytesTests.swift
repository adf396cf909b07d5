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

private final class Observed: @unchecked Sendable {
    var storages: [[UInt8]] = []
}
