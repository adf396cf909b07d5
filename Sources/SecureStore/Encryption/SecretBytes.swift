import Foundation

/// Key material, zeroed when released. Never printed.
///
/// `@unchecked Sendable`: the bytes are written once, in `init`, and only
/// read afterwards (until `deinit` zeroes them).
public final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    private var storage: [UInt8]

    /// Takes the bytes; the copy is zeroed when released.
    public init(_ bytes: [UInt8]) {
        storage = bytes
    }

    deinit {
        for index in storage.indices { storage[index] = 0 }
        SecretBytes.wipeObserver?(storage)
    }

    /// Tests only: called from `deinit` with the storage after zeroing, to
    /// prove that it is zeroed. Set it before creating the secrets to
    /// observe and reset it afterwards, from one test at a time.
    nonisolated(unsafe) package static var wipeObserver: (([UInt8]) -> Void)?

    /// True for no bytes.
    public var isEmpty: Bool { storage.isEmpty }
    /// The number of bytes.
    public var count: Int { storage.count }

    /// Lends the bytes as Data for the duration of `body`; the copy is
    /// zeroed afterwards.
    public func withData<T>(_ body: (Data) throws -> T) rethrows -> T {
        var data = Data(storage)
        defer { data.resetBytes(in: 0..<data.count) }
        return try body(data)
    }

    /// The size only, never the bytes.
    public var description: String { "<secret, \(storage.count) bytes>" }
}
