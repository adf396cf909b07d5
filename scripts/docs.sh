#!/usr/bin/env bash
# Builds the documentation: the SecureStore DocC catalog (articles and
# symbol reference) and MigrateToolKit's, whose migrate-tool reference is
# generated from the tool's own help text (swift-argument-parser's
# generate-docc-reference), so that --help and the reference agree.
#
#   bash scripts/docs.sh                     # build, warnings are errors
#   bash scripts/docs.sh --serve-dir DIR     # also a static site in DIR
#
# Prints the number of warnings (0, or the build fails).
set -euo pipefail
cd "$(dirname "$0")/.."

serve=""
while [ $# -gt 0 ]; do
    case "$1" in
        --serve-dir) serve="$2"; shift 2 ;;
        *) echo "usage: bash scripts/docs.sh [--serve-dir DIR]" >&2; exit 64 ;;
    esac
done

bash scripts/generate-tool-reference.sh
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for target in SecureStore MigrateToolKit; do
    options=(--target "$target" --warnings-as-errors)
    if [ -n "$serve" ]; then
        mkdir -p "$serve/$target"
        swift package --allow-writing-to-directory "$serve" generate-documentation "${options[@]}" \
            --disable-indexing --transform-for-static-hosting --hosting-base-path "$target" \
            --output-path "$serve/$target" 2>&1 | tee -a "$log"
    else
        swift package generate-documentation "${options[@]}" 2>&1 | tee -a "$log"
    fi
done
warnings="$(grep -c "warning:" "$log" || true)"
echo "docs: $warnings warning(s)"
[ "$warnings" = 0 ]
