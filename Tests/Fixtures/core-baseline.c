/*
 * The baseline of CoreDumpTests: what SQLCipher itself keeps of two
 * passphrases after the keying and export a rekey does (open and key the
 * file, ATTACH the copy with the new key, sqlcipher_export), counted in a
 * core of this process. Both passphrases are read from standard input, one
 * per line, with read(2) (no stdio buffer), and zeroed once used. The
 * program prints "keyed" after sqlite3_key, before the first read (where
 * SQLCipher derives the key), and waits for one more byte; then "ready"
 * after the export, and waits for standard input to close.
 *
 *   cc -DSQLITE_HAS_CODEC core-baseline.c $(pkg-config --cflags --libs sqlcipher) -o core-baseline
 *   core-baseline SOURCE.db COPY.db
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sqlite3.h>

/* Reads one line from standard input with read(2), into buf (no stdio buffer). */
static int read_line(char *buf, int size) {
    int n = 0;
    while (n < size - 1) {
        ssize_t got = read(0, buf + n, 1);
        if (got <= 0) return -1;
        if (buf[n] == '\n') break;
        n++;
    }
    buf[n] = 0;
    return n;
}

int main(int argc, char **argv) {
    char key[256], next[256];
    int keyLength = read_line(key, sizeof key), nextLength = read_line(next, sizeof next);
    if (keyLength <= 0 || nextLength <= 0 || argc != 3) return 2;
    sqlite3 *db;
    if (sqlite3_open(argv[1], &db) != SQLITE_OK) return 3;
    sqlite3_exec(db, "PRAGMA cipher_memory_security = ON", 0, 0, 0);
    sqlite3_key(db, key, keyLength);
    explicit_bzero(key, sizeof key);
    /* Keyed, not read yet: SQLCipher derives the key at the first read. */
    printf("keyed\n");
    fflush(stdout);
    char go;
    if (read(0, &go, 1) != 1) return 7;
    if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", 0, 0, 0) != SQLITE_OK) return 4;
    sqlite3_stmt *attach;
    sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS target KEY ?", -1, &attach, NULL);
    sqlite3_bind_text(attach, 1, argv[2], -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(attach, 2, next, nextLength, SQLITE_TRANSIENT);
    if (sqlite3_step(attach) != SQLITE_DONE) return 5;
    sqlite3_finalize(attach);
    if (sqlite3_exec(db, "SELECT sqlcipher_export('target')", 0, 0, 0) != SQLITE_OK) return 6;
    explicit_bzero(next, sizeof next);
    printf("ready\n");
    fflush(stdout);
    char wait;
    while (read(0, &wait, 1) > 0) {}
    sqlite3_close(db);
    return 0;
}
