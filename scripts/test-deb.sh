#!/usr/bin/env bash
# The Debian package's end-to-end test: builds it with package-deb.sh,
# installs it with `dpkg -i` into a scratch root (or, with
# SECURESTORE_DEB_INSTALL=system as root, on this machine, removed after),
# then runs the installed binary: --version, a man page, each completion,
# and a migration, backup and restore of an encrypted database that the
# sqlcipher CLI then reads.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "test-deb: FAILED: $*" >&2; exit 1; }

deb="$(bash scripts/package-deb.sh | tail -1)"
echo "test-deb: built $deb ($(du -h "$deb" | cut -f1))"

depends="$(dpkg-deb --field "$deb" Depends)"
echo "test-deb: Depends: $depends"
case "$depends" in *"libsqlcipher0 (>= 3.4.1)"*) ;; *) fail "no dependency on libsqlcipher0" ;; esac
case "$depends" in *swift*) fail "depends on a Swift package: $depends" ;; esac
# Every dependency is a package this machine has: dpkg -i would accept it.
for package in $(echo "$depends" | tr ',' '\n' | sed 's/(.*)//' | tr -d ' '); do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q "install ok installed" || fail "dependency $package is not installed here"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/securestore-deb-test.XXXXXX")"
chmod 0700 "$work"
if [ "${SECURESTORE_DEB_INSTALL:-scratch}" = system ] && [ "$(id -u)" = 0 ]; then
    dpkg-query -W migrate-tool >/dev/null 2>&1 && fail "a migrate-tool package is installed already; not replacing it"
    trap 'dpkg -r migrate-tool >/dev/null; rm -rf "$work"' EXIT
    dpkg -i "$deb"
    root=""
    echo "test-deb: installed on this machine with dpkg -i"
else
    trap 'rm -rf "$work"' EXIT
    root="$work/root"
    mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
    touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
    # The scratch root's dpkg database knows no packages: the dependencies,
    # checked above against this machine, are not checked again there.
    force="--force-depends"
    [ "$(id -u)" = 0 ] || force="$force,not-root"
    dpkg --root="$root" "$force" --log=/dev/null -i "$deb"
    dpkg --root="$root" -s migrate-tool | grep -q "Status: install ok installed" || fail "dpkg does not list it as installed"
    echo "test-deb: installed into the scratch root $root with dpkg -i"
fi

tool="$root/usr/bin/migrate-tool"
[ -x "$tool" ] || fail "no $tool"
version="$("$tool" --version)"
echo "test-deb: $version"
case "$version" in "migrate-tool "*"SQLCipher 3.4.1"*) ;; *) fail "unexpected --version: $version" ;; esac
if ldd "$tool" | grep -q swift; then fail "the installed binary loads Swift libraries"; fi

for page in migrate-tool migrate-tool.apply migrate-tool.restore migrate-tool.rekey; do
    man="$root/usr/share/man/man1/$page.1.gz"
    [ -f "$man" ] || fail "no man page $man"
    zcat "$man" | grep -q '^\.Nm' || fail "$man is not an mdoc page"
done
zcat "$root/usr/share/man/man1/migrate-tool.restore.1.gz" | grep -q -- "latest" || fail "the restore man page lacks --latest"
grep -q "restore" "$root/usr/share/bash-completion/completions/migrate-tool" || fail "bash completion lacks restore"
grep -q "restore" "$root/usr/share/zsh/vendor-completions/_migrate-tool" || fail "zsh completion lacks restore"
grep -q "restore" "$root/usr/share/fish/vendor_completions.d/migrate-tool.fish" || fail "fish completion lacks restore"
bash -c "source '$root/usr/share/bash-completion/completions/migrate-tool' && complete -p migrate-tool" >/dev/null \
    || fail "the bash completion does not register"

# A migration with the installed binary.
export TEST_DEB_KEY="deb test key"
db="$work/app.db"
"$tool" create "$db" --key-env TEST_DEB_KEY
"$tool" apply "$db" --migrations Examples/migrations --key-env TEST_DEB_KEY --to Zalora-v2 --backup-dir "$work/backups"
"$tool" apply "$db" --migrations Examples/migrations --key-env TEST_DEB_KEY --backup-dir "$work/backups" --keep-backups 1
"$tool" status "$db" --migrations Examples/migrations --key-env TEST_DEB_KEY --check
[ "$(ls "$work/backups" | wc -l)" = 1 ] || fail "--keep-backups 1 left $(ls "$work/backups")"
"$tool" restore "$db" --latest --backup-dir "$work/backups" --key-env TEST_DEB_KEY
# A new file's iteration count: 1,300,000 on SQLCipher 3.4.x, which the
# CLI must be told; SQLCipher 4's default on 4.x.
kdf=""
[ "$(echo "PRAGMA cipher_version;" | sqlcipher -batch :memory: | cut -c1)" = 3 ] && kdf="PRAGMA kdf_iter = 1300000;"
history="$(printf "PRAGMA key = '%s';\n%s\nSELECT group_concat(identifier) FROM securestore_migrations;\n" "$TEST_DEB_KEY" "$kdf" | sqlcipher -batch "$db")"
[ "$history" = "Zalora-v1,Zalora-v2" ] || fail "after restore, the sqlcipher CLI reads history '$history'"
echo "test-deb: ok (installed binary: create, apply, status --check, restore; the sqlcipher CLI reads the result)"
