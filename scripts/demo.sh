#!/usr/bin/env bash
# The demo: an encrypted database with a key from keys.example, the example
# migrations applied with migrate-tool, inspected, rolled back one step,
# inspected again, and shown unreadable to plain sqlite3.
set -euo pipefail
cd "$(dirname "$0")/.."
# The packages of the repository's own tests and documentation (Package.swift).
export SECURESTORE_DEVELOPMENT=1
bash scripts/install-deps.sh
swift build --product migrate-tool
tool="$PWD/.build/debug/migrate-tool"

work="$(mktemp -d "${TMPDIR:-/tmp}/securestore-demo.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp keys.example "$work/keys.conf"
chmod 600 "$work/keys.conf"
db="$work/zalora.db"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$tool" --version
step "$tool" create "$db" --key-file "$work/keys.conf" --key-name demo
step "$tool" apply "$db" --migrations Examples/migrations --key-file "$work/keys.conf" --key-name demo
step "$tool" inspect "$db" --migrations Examples/migrations --key-file "$work/keys.conf" --key-name demo --integrity
step "$tool" rollback "$db" --steps 1 --migrations Examples/migrations --key-file "$work/keys.conf" --key-name demo
step "$tool" inspect "$db" --migrations Examples/migrations --key-file "$work/keys.conf" --key-name demo

printf '\n\033[1m$ sqlite3 %s "SELECT * FROM brandRGDB"\033[0m\n' "$db"
if sqlite3 "$db" "SELECT * FROM brandRGDB" 2>&1; then
    echo "UNEXPECTED: plain sqlite3 read the encrypted file" >&2
    exit 1
fi
echo "(plain sqlite3 cannot read it: the file is encrypted)"

printf '\n\033[1m$ head -c 16 %s | od -c\033[0m\n' "$db"
head -c 16 "$db" | od -c | head -2
echo "(a random salt, not \"SQLite format 3\")"

printf '\n\033[1m$ %s inspect %s --key-env WRONG\033[0m\n' "$tool" "$db"
set +e
WRONG="not the key" "$tool" inspect "$db" --key-env WRONG
echo "exit code: $? (65: wrong key or not a database)"
