#!/usr/bin/env bash
# The cost of key derivation at each setting (BENCHMARKS.md): the median of
# 5 wall times of `migrate-tool inspect` on files made with 64,000, 256,000
# and 1,300,000 PBKDF2 iterations, and on a file keyed with a raw key (no
# derivation), in a private scratch folder removed afterwards.
#   bash scripts/kdf-cost.sh [--sqlcipher 3|4]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlcipher-line.sh
sqlcipher_line_parse_args "$@"
sqlcipher_line_setup
build=(); [ "$sqlcipher_line" = 4 ] && build=(--scratch-path .build-sqlcipher4 "${swift_line_cflags[@]}")
swift build --product migrate-tool "${build[@]+"${build[@]}"}" >&2
tool="$(swift build --show-bin-path "${build[@]+"${build[@]}"}")/migrate-tool"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
umask 077
printf '[p]\npassphrase = "cost check"\n[r]\nraw = %s\n' "$(openssl rand -hex 32)" > "$work/keys"
"$tool" create "$work/raw.db" --key-file "$work/keys" --key-name r > /dev/null
median() {
    for _ in 1 2 3 4 5; do
        start=$(date +%s%N); "$@" > /dev/null; end=$(date +%s%N); echo $(( (end - start) / 1000000 ))
    done | sort -n | sed -n 3p
}
raw=$(median "$tool" inspect "$work/raw.db" --key-file "$work/keys" --key-name r)
echo "raw key: $raw ms"
for iterations in 64000 256000 1300000; do
    "$tool" create "$work/p$iterations.db" --key-file "$work/keys" --key-name p --kdf-iter "$iterations" > /dev/null
    open=$(median "$tool" inspect "$work/p$iterations.db" --key-file "$work/keys" --key-name p --kdf-iter "$iterations")
    echo "passphrase, $iterations iterations: $open ms (derivation $(( open - raw )) ms)"
done
