#!/usr/bin/env bash
# The example service (Examples/notes-service), end to end, as a deploy
# would run it:
#   1. the service starts on a new encrypted database (its migrations
#      applied at start) and is driven over HTTP with curl: notes added,
#      listed and deleted for two users, requests without a valid token
#      refused;
#   2. with the service up, `migrate-tool apply` adds the next release's
#      migration (the service goes on serving, and writing), and
#      `migrate-tool rekey` refuses (exit 75, naming the service);
#   3. SIGTERM: the service finishes, closes its pool and exits 0; the
#      rekey then runs; the service starts again on the new key;
#   4. the file, read by the sqlcipher CLI: every note there, only the new
#      key opens it, nothing beside it (no -wal, -shm, no plaintext).
#
#   bash scripts/example-service.sh [--sqlcipher 3|4] [--build-only]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
source scripts/sqlcipher-line.sh
sqlcipher_line_parse_args "$@"
set -- "${sqlcipher_args[@]+"${sqlcipher_args[@]}"}"
build_only=no
[ "${1:-}" = --build-only ] && build_only=yes
command -v curl >/dev/null || { echo "example-service: curl is missing" >&2; exit 69; }

fail() { echo "example-service: FAILED: $*" >&2; exit 1; }

package=Examples/notes-service
# The build folder: the package's own, or SECURESTORE_EXAMPLE_SCRATCH (CI
# keeps it outside the clone, so that Hummingbird, SwiftNIO and
# swift-crypto are built once per machine, not once per run: a warm build
# rebuilds SecureStore and the service, about 50 s on 2 cores, where a
# cold one takes about 160 s).
scratch="${SECURESTORE_EXAMPLE_SCRATCH:-$package/.build}"
[ "$sqlcipher_line" = 4 ] && scratch="${SECURESTORE_EXAMPLE_SCRATCH:-$package/.build}-sqlcipher4"
echo "== building the notes service (SQLCipher line $sqlcipher_line)"
# SecureStore as an app sees it: without the packages of its own tests and
# documentation (Package.swift).
env -u SECURESTORE_DEVELOPMENT swift build --package-path "$package" --scratch-path "$scratch" \
    "${swift_line_cflags[@]+"${swift_line_cflags[@]}"}"
swift build --product migrate-tool "${swift_line_flags[@]+"${swift_line_flags[@]}"}"
[ "$build_only" = no ] || exit 0
service="$scratch/debug/notes-service"
tool="$(swift build --show-bin-path "${swift_line_flags[@]+"${swift_line_flags[@]}"}")/migrate-tool"

work="$(mktemp -d "${TMPDIR:-/tmp}/notes-service.XXXXXX")"
chmod 700 "$work"
pid=""
trap '[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null; rm -rf "$work"' EXIT
random() { python3 -c 'import secrets; print(secrets.token_hex(32))'; }
NOTES_DB_KEY="x'$(random)'"
NEXT_DB_KEY="x'$(random)'"
NOTES_JWT_SECRET="$(random)"
export NOTES_DB_KEY NEXT_DB_KEY NOTES_JWT_SECRET
database="$work/notes.db"

# token USER: an HS256 JWT for USER, valid 10 minutes, signed with the
# secret from the environment.
token() {
    python3 -c '
import base64, hashlib, hmac, json, os, sys, time
def part(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
head = part(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
body = part(json.dumps({"sub": sys.argv[1], "exp": int(time.time()) + 600}).encode())
mac = hmac.new(os.environ["NOTES_JWT_SECRET"].encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
print(f"{head}.{body}.{part(mac)}")' "$1"
}
alice="$(token alice)"
bob="$(token bob)"

# start KEYVAR MIGRATIONS: the service on a free port; waits for the line
# that says where it listens (60 s at most), and sets $pid and $url.
start() {
    local log="$work/service.log"
    : > "$log"
    "$service" --database "$database" --key-env "$1" --migrations "$2" --port 0 >>"$log" 2>&1 &
    pid=$!
    local deadline=$((SECONDS + 60)) port=""
    until port="$(grep -o 'listening.*:[0-9]*' "$log" | grep -o '[0-9]*$')" && [ -n "$port" ]; do
        kill -0 "$pid" 2>/dev/null || fail "the service exited: $(cat "$log")"
        [ "$SECONDS" -lt "$deadline" ] || fail "the service did not listen within 60 s: $(cat "$log")"
        sleep 0.05
    done
    url="http://127.0.0.1:$port"
}
# stop: SIGTERM, then the exit status must be 0 and the pool closed.
stop() {
    kill -TERM "$pid"
    local status=0
    wait "$pid" || status=$?
    pid=""
    [ "$status" -eq 0 ] || fail "the service exited $status after SIGTERM: $(cat "$work/service.log")"
    grep -q "database closed" "$work/service.log" || fail "the pool was not closed: $(cat "$work/service.log")"
}
# call TOKEN METHOD PATH [BODY]: prints "STATUS BODY".
call() {
    local auth=() data=()
    [ -n "$1" ] && auth=(-H "Authorization: Bearer $1")
    [ $# -ge 4 ] && data=(-H "Content-Type: application/json" --data "$4")
    curl -sS -o "$work/body" -w '%{http_code}' -X "$2" "${auth[@]+"${auth[@]}"}" "${data[@]+"${data[@]}"}" "$url$3"
    echo " $(cat "$work/body")"
}
expect() {
    local wanted="$1" got; shift
    got="$(call "$@")"
    case "$got" in "$wanted"*) ;; *) fail "$2 $3: expected $wanted, got: $got" ;; esac
}

echo "== 1. the service on a new encrypted database"
start NOTES_DB_KEY "$package/migrations"
expect 200 "" GET /health
for text in one two three; do expect 201 "$alice" POST /notes "{\"text\": \"canary-note-alice-$text\"}"; done
expect 201 "$bob" POST /notes '{"text": "canary-note-bob"}'
[ "$(call "$alice" GET /notes | grep -o canary-note-alice | wc -l)" = 3 ] || fail "alice does not see her 3 notes"
[ "$(call "$bob" GET /notes | grep -o canary-note | wc -l)" = 1 ] || fail "bob does not see his note only"
expect 401 "" GET /notes
expect 401 "not.a.token" GET /notes
expect 404 "$bob" DELETE /notes/1
expect 204 "$alice" DELETE /notes/1

echo "== 2. with the service up: apply the next release's migration, rekey refused"
release="$work/release-2"
cp -r "$package/migrations" "$release"
printf 'ALTER TABLE note ADD COLUMN pinned BOOLEAN NOT NULL DEFAULT 0;\nCREATE INDEX note_pinned ON note (user, pinned);\n' > "$release/0002_pinned.up.sql"
printf 'DROP INDEX note_pinned;\nCREATE TABLE note_old AS SELECT id, user, text, createdAt FROM note;\nDROP TABLE note;\nALTER TABLE note_old RENAME TO note;\nCREATE INDEX note_on_user ON note (user);\n' > "$release/0002_pinned.down.sql"
"$tool" apply "$database" --migrations "$release" --key-env NOTES_DB_KEY --backup-dir "$work/backups" \
    || fail "apply beside the running service"
expect 201 "$alice" POST /notes '{"text": "canary-note-alice-after-apply"}'
status=0
"$tool" rekey "$database" --key-env NOTES_DB_KEY --new-key-env NEXT_DB_KEY --backup-dir "$work/backups" 2>"$work/rekey.err" || status=$?
[ "$status" -eq 75 ] || fail "rekey beside the running service: exit $status (expected 75): $(cat "$work/rekey.err")"
grep -q "pid $pid (notes-service" "$work/rekey.err" || fail "rekey does not name the service: $(cat "$work/rekey.err")"

echo "== 3. SIGTERM, rekey, start on the new key"
stop
"$tool" rekey "$database" --key-env NOTES_DB_KEY --new-key-env NEXT_DB_KEY --backup-dir "$work/backups" \
    || fail "rekey once the service stopped"
start NEXT_DB_KEY "$release"
expect 200 "" GET /health
[ "$(call "$alice" GET /notes | grep -o canary-note-alice | wc -l)" = 3 ] || fail "alice's notes after the rekey"
stop

echo "== 4. the file, read by the sqlcipher CLI"
count() { printf '.output /dev/null\nPRAGMA key = "%s";\n.output stdout\nSELECT count(*) FROM note;\n' "$1" | sqlcipher -batch "$database" 2>/dev/null; }
[ "$(count "$NEXT_DB_KEY")" = 4 ] || fail "the new key does not read the 4 notes: $(count "$NEXT_DB_KEY")"
[ -z "$(count "$NOTES_DB_KEY")" ] || fail "the old key still opens the file"
[ "$(head -c 15 "$database")" != "SQLite format 3" ] || fail "the database is plaintext"
leftovers="$(cd "$work" && ls -A | grep -v -x -e notes.db -e backups -e release-2 -e service.log -e body -e rekey.err || true)"
[ -z "$leftovers" ] || fail "files beside the database: $leftovers"
for file in "$work/notes.db" "$work"/backups/*; do
    ! grep -q canary-note "$file" || fail "plaintext in $file"
done
for file in "$work"/backups/*; do
    printf '.output /dev/null\nPRAGMA key = "%s";\n.output stdout\nSELECT count(*) FROM sqlite_master;\n' "$NOTES_DB_KEY" \
        | sqlcipher -batch "$file" >/dev/null 2>&1 && fail "the old key opens the backup $file"
done
echo "example-service: passed (notes-service on SQLCipher line $sqlcipher_line)"
