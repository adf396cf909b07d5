#ifndef SECURESTORE_PROCESS_CONTROL_H
#define SECURESTORE_PROCESS_CONTROL_H

// prctl(2) is declared variadic, and Swift does not call variadic C
// functions: these wrappers are the only calls SecureStore makes to it.

/// PR_SET_DUMPABLE 0: no core dump of this process, and its /proc/PID
/// files (environ, mem, maps) and ptrace belong to root only, not to other
/// processes of the same user. Returns 0, or -1 with errno set.
int securestore_process_set_nondumpable(void);

/// PR_GET_DUMPABLE: 1 when the process may be dumped and attached to by
/// its user, 0 when not, -1 with errno set on failure.
int securestore_process_dumpable(void);

#endif
