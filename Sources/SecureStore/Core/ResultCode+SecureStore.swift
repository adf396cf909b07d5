/// The extended result codes SecureStore itself reports: SQLite's primary
/// codes (so that `catch ResultCode.SQLITE_BUSY` still matches), with
/// details of their own (`0x53`, "S", in the extended bits).
///
/// ```swift
/// do {
///     try Cipher.rekey(at: path, from: oldKey, to: newKey)
/// } catch ResultCode.SECURESTORE_BUSY_IN_USE {
///     // a DatabasePool, or another process, has the file open: nothing changed
/// } catch ResultCode.SECURESTORE_CANTOPEN_HARD_LINKS {
///     // the file has other names, which would keep the old key
/// }
/// ```
///
/// ## Topics
///
/// ### Replacing a file
///
/// - ``SECURESTORE_BUSY_IN_USE``
/// - ``SECURESTORE_BUSY_REPLACING``
/// - ``SECURESTORE_CANTOPEN_HARD_LINKS``
extension ResultCode {
    /// A replacement of a database file (`Cipher.rekey`, `encrypt` in
    /// place, `upgrade`, migrate-tool's `restore`) was refused because a
    /// connection of this process or another process has the file open;
    /// the message names them. Nothing was changed.
    public static let SECURESTORE_BUSY_IN_USE = extended(.SQLITE_BUSY, 0x53)

    /// A connection could not open the file while another process replaced
    /// it (within its busy timeout). Open it again.
    public static let SECURESTORE_BUSY_REPLACING = extended(.SQLITE_BUSY, 0x54)

    /// A replacement was refused because the file has other hard links:
    /// they would keep the replaced file (the old key, or the plaintext).
    /// Nothing was changed.
    public static let SECURESTORE_CANTOPEN_HARD_LINKS = extended(.SQLITE_CANTOPEN, 0x53)
}
