import Foundation
internal import CProcessControl
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps the key material of a running process from other processes and
/// from core dumps.
///
/// ``enable()`` makes the process non-dumpable (`prctl(PR_SET_DUMPABLE,
/// 0)`): it leaves no core file when it crashes, and its `/proc/PID` files
/// (`environ`, `mem`, `maps`) and `ptrace` belong to root only, not to the
/// other processes of the same user. It also sets the core size limit
/// (`RLIMIT_CORE`) to 0 for good. Root can still attach to the process;
/// ``SecretBytes`` keeps keys out of a core that root takes.
/// `migrate-tool` calls it first thing; a server that holds keys can do
/// the same at launch.
///
/// ```swift
/// try ProcessProtection.enable()
/// let passphrase = SecretBytes.takingEnvironmentVariable("APP_DB_PASSPHRASE")
/// ```
///
/// ## Topics
///
/// ### Protecting the Process
///
/// - ``enable()``
/// - ``isEnabled``
public enum ProcessProtection {
    /// Makes the process non-dumpable and its core size limit 0.
    ///
    /// - throws: `POSIXError` when the kernel refuses either.
    public static func enable() throws {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        guard setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0 else { throw currentError() }
        guard securestore_process_set_nondumpable() == 0 else { throw currentError() }
    }

    /// True when the process is non-dumpable and may not write a core file.
    public static var isEnabled: Bool {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0 else { return false }
        return securestore_process_dumpable() == 0 && limit.rlim_cur == 0 && limit.rlim_max == 0
    }

    private static func currentError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)
    }
}
