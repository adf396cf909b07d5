import Foundation
@testable import SecureStore
import XCTest

final class SHA256Tests: SecureStoreTestCase {
    func testKnownVectors() {
        XCTAssertEqual(SHA256Digest.hex(of: ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256Digest.hex(of: "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256Digest.hex(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testAgreesWithSha256sumAcrossBlockBoundaries() throws {
        for length in [55, 56, 63, 64, 65, 119, 120, 1000, 100_000] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let file = path("bytes-\(length)")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            XCTAssertEqual(SHA256Digest.hex(of: bytes), try sha256(file), "length \(length)")
        }
    }
}
