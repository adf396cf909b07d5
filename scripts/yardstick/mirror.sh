# Sourced by the GRDB yardstick scripts: the GRDB mirror and the scratch
# package, checked. Sets repo, mirror, tag and scratch.
#   source mirror.sh NAME SCRATCH-VARIABLE DEFAULT-SCRATCH-NAME
name="$1"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mirror="${GRDB_MIRROR:-/opt/swift-packages/groue/GRDB.swift.git}"
tag=7.10.0
scratch="${!2:-${TMPDIR:-/tmp}/$3}"

case "$scratch/" in
    "$repo"/*) echo "$name: $2 must be outside the project ($repo)" >&2; exit 64 ;;
esac
git -C "$mirror" rev-parse --verify --quiet "$tag^{commit}" >/dev/null \
    || { echo "$name: no GRDB $tag in $mirror (set GRDB_MIRROR)" >&2; exit 66; }
