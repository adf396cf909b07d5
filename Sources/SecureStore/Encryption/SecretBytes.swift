import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Key material in memory of its own: locked in RAM, left out of core
/// dumps, zeroed when released. Never printed.
///
/// The bytes live in whole pages mapped for them alone. The pages are
/// locked (`mlock`: never written to swap, within the process's
/// `RLIMIT_MEMLOCK`), marked `MADV_DONTDUMP` (absent from a core dump,
/// including one `gcore` takes) and `MADV_WIPEONFORK` (a forked child sees
/// zeros), and zeroed with `explicit_bzero`, which the compiler may not
/// remove, before they are unmapped. Fill them in place with
/// ``init(capacity:initializingWith:)`` so that the secret never exists
/// elsewhere; ``init(_:)`` copies bytes the caller then still holds.
///
/// ```swift
/// // Read a passphrase from a descriptor straight into protected memory.
/// let passphrase = try SecretBytes(capacity: 1024) { buffer in
///     read(descriptor, buffer.baseAddress, buffer.count)
/// }
/// let key = CipherKey(material: .passphrase(passphrase))
/// ```
///
/// `@unchecked Sendable`: the bytes are written once, in `init`, and only
/// read afterwards (until `deinit` zeroes them).
///
/// ## Topics
///
/// ### Making a Secret
///
/// - ``init(capacity:initializingWith:)``
/// - ``init(_:)``
/// - ``takingEnvironmentVariable(_:)``
///
/// ### Reading It
///
/// - ``withUnsafeBytes(_:)``
/// - ``withData(_:)``
/// - ``count``
/// - ``isEmpty``
///
/// ### Protection
///
/// - ``isLockedInMemory``
/// - ``isExcludedFromCoreDumps``
public final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    /// The pages; the secret is at their start.
    private let pages: UnsafeMutableRawBufferPointer
    /// True when the pages are a mapping of their own (`mmap`); false when
    /// the kernel refused one and they came from the heap, page-aligned.
    private let isMapped: Bool
    /// The number of bytes.
    public let count: Int
    /// True when the pages are locked in RAM; false when the process's
    /// `RLIMIT_MEMLOCK` is used up (the bytes may then reach swap). Under
    /// AddressSanitizer or ThreadSanitizer, whose `mlock` does nothing, it
    /// is true but the pages are not locked.
    public let isLockedInMemory: Bool
    /// True when the pages are left out of core dumps.
    public let isExcludedFromCoreDumps: Bool

    /// Protected memory for up to `capacity` bytes, filled by `body`, which
    /// returns how many bytes it wrote (a `read` may write fewer). Memory
    /// `body` did not fill stays zero and is not part of the secret.
    ///
    /// - throws: What `body` throws; the memory is zeroed first.
    public init(capacity: Int, initializingWith body: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows {
        precondition(capacity >= 0, "a negative capacity")
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = max(1, (capacity + pageSize - 1) / pageSize) * pageSize
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        isMapped = mapped != nil && mapped != MAP_FAILED
        // Without a mapping (the process's map count or memory is used up),
        // whole pages of the heap, zeroed, still take the lock and advice.
        let address = isMapped ? mapped! : UnsafeMutableRawPointer.allocate(byteCount: length, alignment: pageSize)
        if !isMapped { address.initializeMemory(as: UInt8.self, repeating: 0, count: length) }
        pages = UnsafeMutableRawBufferPointer(start: address, count: length)
        isLockedInMemory = mlock(address, length) == 0
        isExcludedFromCoreDumps = madvise(address, length, MADV_DONTDUMP) == 0
        _ = madvise(address, length, MADV_WIPEONFORK)
        do {
            let written = try body(UnsafeMutableRawBufferPointer(rebasing: pages[0..<capacity]))
            precondition((0...capacity).contains(written), "SecretBytes: \(written) bytes written in a capacity of \(capacity)")
            count = written
        } catch {
            count = 0
            throw error
        }
    }

    /// A copy of `bytes` in protected memory. The caller's own bytes are
    /// not touched: zero them if they were secret.
    public convenience init(_ bytes: some Collection<UInt8>) {
        self.init(capacity: bytes.count) { buffer in
            buffer.copyBytes(from: bytes)
            return bytes.count
        }
    }

    deinit {
        // Never nil: the pages are at least one.
        let address = pages.baseAddress!
        explicit_bzero(address, pages.count)
        SecretBytes.wipeObserver?(Array(UnsafeRawBufferPointer(rebasing: pages[0..<count])))
        if isLockedInMemory { munlock(address, pages.count) }
        if isMapped {
            munmap(address, pages.count)
        } else {
            _ = madvise(address, pages.count, MADV_DODUMP)
            address.deallocate()
        }
    }

    /// Tests only: called from `deinit` with the storage after zeroing, to
    /// prove that it is zeroed. Set it before creating the secrets to
    /// observe and reset it afterwards, from one test at a time.
    nonisolated(unsafe) package static var wipeObserver: (([UInt8]) -> Void)?

    /// True for no bytes.
    public var isEmpty: Bool { count == 0 }

    /// Lends the bytes, in place, for the duration of `body`. Do not keep
    /// the pointer, or copy the bytes into memory that is not zeroed.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: pages[0..<count]))
    }

    /// Lends a copy of the bytes as `Data`, for APIs that take `Data`; the
    /// copy is zeroed afterwards (it is ordinary heap memory meanwhile).
    public func withData<T>(_ body: (Data) throws -> T) rethrows -> T {
        var data = withUnsafeBytes { Data($0) }
        defer { data.resetBytes(in: 0..<data.count) }
        return try body(data)
    }

    /// True when both hold the same bytes; the time does not depend on
    /// where they differ.
    func hasSameBytes(as other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { mine in
            other.withUnsafeBytes { theirs in
                var difference: UInt8 = 0
                for index in 0..<count { difference |= mine[index] ^ theirs[index] }
                return difference == 0
            }
        }
    }

    /// True for SQLCipher's text form of a raw key, `x'<64 or 96 hex
    /// digits>'`, which SQLCipher uses without a key derivation.
    var isRawKeyText: Bool {
        guard count == 67 || count == 99 else { return false }
        return withUnsafeBytes { text in
            (text[0] | 0x20) == UInt8(ascii: "x") && text[1] == UInt8(ascii: "'") && text[count - 1] == UInt8(ascii: "'")
                && text[2..<(count - 1)].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x66) }
        }
    }

    /// The size only, never the bytes.
    public var description: String { "<secret, \(count) bytes>" }
}
