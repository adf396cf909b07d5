#ifndef SECURESTORE_CSQLCIPHER_SHIM_H
#define SECURESTORE_CSQLCIPHER_SHIM_H

// sqlite3_key, sqlite3_rekey and friends are only declared when the codec is
// enabled. Include through sqlcipher/: a plain <sqlite3.h> may resolve to
// libsqlite3-dev's header, which has no codec.
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

// PBKDF2-HMAC-SHA1 from OpenSSL's libcrypto, which libsqlcipher itself uses:
// DatabasePool derives a passphrase's key once and keys its other
// connections with the raw key.
#include <openssl/evp.h>
// Ed25519 signatures of migration directories (Encryption/Ed25519.swift):
// random keys.
#include <openssl/rand.h>

// sqlite3_config is variadic, which Swift cannot call: the error log
// callback (Database.logError) is registered through this function.
static inline int securestore_register_error_log(void (*callback)(void *, int, const char *)) {
    return sqlite3_config(SQLITE_CONFIG_LOG, callback, (void *)0);
}

// Turns off SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS), which
// take a process-wide mutex at every allocation and free SQLite makes.
// Returns SQLITE_MISUSE, and changes nothing, once SQLite has initialized.
static inline int securestore_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// sqlite3_db_config is variadic as well: its integer options (double-quoted
// string literals, SQLite 3.29 and later) go through this function.
static inline int securestore_db_config_int(sqlite3 *db, int option, int value) {
    return sqlite3_db_config(db, option, value, (int *)0);
}
#ifndef SQLITE_DBCONFIG_DQS_DML
#define SQLITE_DBCONFIG_DQS_DML 1013
#define SQLITE_DBCONFIG_DQS_DDL 1014
#endif

#endif
