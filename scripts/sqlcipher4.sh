#!/usr/bin/env bash
# Builds Debian 13's SQLCipher (4.6.1-2, on SQLite 3.46.1) from Debian's own
# source package into a private prefix, and prints the prefix.
#
#   bash scripts/sqlcipher4.sh            # fetch, build and install once; print the prefix
#   bash scripts/sqlcipher4.sh --check    # print the prefix if it is built, exit 1 otherwise
#
# Debian 13's binary packages need glibc 2.38 and do not run on Debian 12,
# but its source package builds here. Nothing of the system changes: apt
# reads a sources list, lists and cache of its own (the system's keyring
# checks the signatures), and the library, headers and `sqlcipher` CLI go to
# the prefix. The build uses the configure options and CFLAGS of the
# package's debian/rules, with the hardening flags dpkg-buildflags gives.
#
# The prefix is cached by version and by this script's content:
# SECURESTORE_SQLCIPHER4_PREFIX, or $XDG_CACHE_HOME/securestore (default
# ~/.cache/securestore)/sqlcipher-4.6.1-2-<hash>. It lies outside the
# project, and nothing of it is committed. About 3 minutes on 2 cores the
# first time.
set -euo pipefail

version="4.6.1-2"
here="$(cd "$(dirname "$0")" && pwd)"
hash="$(sha256sum "$here/sqlcipher4.sh" | cut -c1-12)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/securestore"
prefix="${SECURESTORE_SQLCIPHER4_PREFIX:-$cache/sqlcipher-$version-$hash}"

built() { [ -x "$prefix/bin/sqlcipher" ] && [ -f "$prefix/include/sqlcipher/sqlite3.h" ] && [ -f "$prefix/lib/pkgconfig/sqlcipher.pc" ]; }

if [ "${1:-}" = "--check" ]; then
    built && { echo "$prefix"; exit 0; }
    exit 1
fi
if built; then echo "$prefix"; exit 0; fi

# What the build needs from Debian 12: compilers, tclsh (SQLite generates
# its amalgamation with it), OpenSSL's headers, dpkg-dev (dpkg-source,
# dpkg-buildflags), and the archive keyring.
missing=()
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v tclsh >/dev/null 2>&1 || missing+=(tcl)
command -v dpkg-source >/dev/null 2>&1 || missing+=(dpkg-dev)
[ -f /usr/include/openssl/evp.h ] || missing+=(libssl-dev)
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || missing+=(debian-archive-keyring)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "sqlcipher4: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/securestore-sqlcipher4.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/apt/sources.list.d" "$work/apt/preferences.d"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
    > "$work/apt/sources.list"
apt_options=(
    -o "Dir::Etc::SourceList=$work/apt/sources.list"
    -o "Dir::Etc::SourceParts=$work/apt/sources.list.d"
    -o "Dir::Etc::Preferences=$work/apt/preferences"
    -o "Dir::Etc::PreferencesParts=$work/apt/preferences.d"
    -o "Dir::State::Lists=$work/apt/lists"
    -o "Dir::Cache=$work/apt/cache"
    -o "APT::Sandbox::User=root"
)
echo "sqlcipher4: fetching Debian 13's source package sqlcipher $version" >&2
apt-get "${apt_options[@]}" -qq update
(cd "$work" && apt-get "${apt_options[@]}" -qq source --download-only "sqlcipher=$version" >/dev/null)
# dpkg-source checks the .dsc's checksums and applies Debian's patches.
(cd "$work" && dpkg-source --no-check -x "sqlcipher_$version.dsc" src >/dev/null)

# The flags of debian/rules: DEB_BUILD_MAINT_OPTIONS=hardening=+all, and
# its CFLAGS additions, read from the file rather than copied here.
export DEB_BUILD_MAINT_OPTIONS="hardening=+all"
rules_cflags="$(sed -n '/^export CFLAGS += /,/^$/p' "$work/src/debian/rules" | grep -Eo -- '-[A-Za-z][A-Za-z0-9_=.-]*' | grep -v '^-fno-strict-aliasing$' | tr '\n' ' ')"
case "$rules_cflags" in *-DSQLITE_HAS_CODEC*) ;; *) echo "sqlcipher4: debian/rules has no -DSQLITE_HAS_CODEC; refusing to guess" >&2; exit 1 ;; esac
export CFLAGS="$(dpkg-buildflags --get CFLAGS) -fno-strict-aliasing $rules_cflags"
export CPPFLAGS="$(dpkg-buildflags --get CPPFLAGS)"
export LDFLAGS="$(dpkg-buildflags --get LDFLAGS)"
configure_options="$(sed -n '/dh_auto_configure --/,/^$/p' "$work/src/debian/rules" | grep -Eo -- '--(enable|disable)-[a-z0-9-]+' | tr '\n' ' ')"

echo "sqlcipher4: building into $prefix (options: $configure_options)" >&2
cd "$work/src"
# shellcheck disable=SC2086
./configure --prefix="$prefix" $configure_options >"$work/configure.log" 2>&1 \
    || { tail -40 "$work/configure.log" >&2; exit 1; }
make -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -40 "$work/make.log" >&2; exit 1; }
# Installed through DESTDIR into a staging folder, then moved into place:
# a killed build never leaves a half prefix in the cache.
mkdir -p "$(dirname "$prefix")"
staging="$(mktemp -d "$(dirname "$prefix")/.staging.XXXXXX")"
make install DESTDIR="$staging" >"$work/install.log" 2>&1 || { tail -40 "$work/install.log" >&2; rm -rf "$staging"; exit 1; }
rm -f "$staging$prefix/lib/libsqlcipher.la"
rm -rf "$prefix"
mv "$staging$prefix" "$prefix"
rm -rf "$staging"
built || { echo "sqlcipher4: the build did not produce $prefix/bin/sqlcipher" >&2; exit 1; }
echo "sqlcipher4: $("$prefix/bin/sqlcipher" -version)" >&2
echo "$prefix"
