#!/usr/bin/env bash
# Builds a Debian package of migrate-tool, for hosts without a Swift
# toolchain: a release build with the Swift runtime linked in statically,
# the man pages (swift-argument-parser's generate-manual, from the same
# help text as --help), bash, zsh and fish completions, keys.example, and
# dependencies on the shared libraries it loads (libsqlcipher0 among them),
# found with ldd and dpkg.
#
#   bash scripts/package-deb.sh [--output DIR]       # default: .build/deb
#
# Prints the path of the .deb on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
# The packages of the repository's own tests and documentation (Package.swift).
export SECURESTORE_DEVELOPMENT=1

output=.build/deb
while [ $# -gt 0 ]; do
    case "$1" in
        --output) output="$2"; shift 2 ;;
        *) echo "usage: bash scripts/package-deb.sh [--output DIR]" >&2; exit 64 ;;
    esac
done

bash scripts/install-deps.sh >&2
for tool in dpkg-deb dpkg-query ldd gzip; do
    command -v "$tool" >/dev/null || { echo "package-deb: $tool is missing" >&2; exit 69; }
done

swift build -c release --product migrate-tool --static-swift-stdlib >&2
binary="$(swift build -c release --show-bin-path)/migrate-tool"
swift build --product generate-manual >&2
generate_manual="$(swift build --show-bin-path)/generate-manual"

version="$("$binary" --version | awk '{ print $2 }')"
arch="$(dpkg --print-architecture)"
# Reproducible dates: the last commit's, not the build's.
date="$(git log -1 --format=%cs 2>/dev/null || date -u +%F)"

stage="$(mktemp -d "${TMPDIR:-/tmp}/migrate-tool-deb.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"
root="$stage/root"

install -D -m 0755 "$binary" "$root/usr/bin/migrate-tool"
strip --strip-unneeded "$root/usr/bin/migrate-tool" 2>/dev/null || true

mkdir -p "$root/usr/share/man/man1"
"$generate_manual" "$root/usr/bin/migrate-tool" --multi-page --date "$date" \
    --output-directory "$root/usr/share/man/man1" >&2
gzip -9n "$root"/usr/share/man/man1/*.1

install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
"$root/usr/bin/migrate-tool" --generate-completion-script bash > "$root/usr/share/bash-completion/completions/migrate-tool"
"$root/usr/bin/migrate-tool" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_migrate-tool"
"$root/usr/bin/migrate-tool" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/migrate-tool.fish"

install -D -m 0644 keys.example "$root/usr/share/doc/migrate-tool/examples/keys.example"
install -D -m 0644 /dev/stdin "$root/usr/share/doc/migrate-tool/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: SecureStore migrate-tool
Comment: Built from the SecureStore repository; see its README.
EOF

# The package of each shared library the binary loads.
depends=""
while read -r library; do
    package=""
    for candidate in "$library" "$(readlink -f "$library")" "*/$(basename "$library")"; do
        package="$(dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1)" && [ -n "$package" ] && break
    done
    if [ -z "$package" ]; then
        echo "package-deb: no Debian package provides $library (is the Swift runtime linked statically?)" >&2
        exit 70
    fi
    case "$package" in
        libsqlcipher*) entry="$package (>= 3.4.1)" ;;
        *) entry="$package" ;;
    esac
    case ", $depends, " in *", $entry, "*) ;; *) depends="${depends:+$depends, }$entry" ;; esac
done < <(ldd "$root/usr/bin/migrate-tool" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }')
case "$depends" in
    *libsqlcipher*) ;;
    *) echo "package-deb: the binary does not load libsqlcipher" >&2; exit 70 ;;
esac

installed_size="$(du -sk "$root" | cut -f1)"
install -d "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<EOF
Package: migrate-tool
Version: $version
Architecture: $arch
Maintainer: SecureStore maintainers <securestore@localhost>
Installed-Size: $installed_size
Depends: $depends
Section: database
Priority: optional
Description: inspect, apply and roll back migrations on SQLCipher databases
 migrate-tool applies and rolls back migrations on SQLCipher-encrypted
 SQLite files from deploy scripts: each step atomic, encrypted backups,
 restore, rekey across many files, keys from files, the environment or a
 secret manager's command, never from the command line.
EOF
chmod 0644 "$root/DEBIAN/control"
find "$root" -type d -exec chmod 0755 {} +
find "$root/usr/share" -type f -exec chmod 0644 {} +

mkdir -p "$output"
deb="$output/migrate-tool_${version}_${arch}.deb"
rm -f "$deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
echo "$deb"
