#!/usr/bin/env bash
# Builds the documentation: the SecureStore DocC catalog (articles and
# symbol reference) and MigrateToolKit's, whose migrate-tool reference is
# generated from the tool's own help text (swift-argument-parser's
# generate-docc-reference), so that --help and the reference agree.
#
#   bash scripts/docs.sh                     # build, warnings are errors
#   bash scripts/docs.sh --serve-dir DIR     # also a static site in DIR
#
# Prints the number of DocC warnings (0, or the build fails).
set -euo pipefail
cd "$(dirname "$0")/.."
# The packages of the repository's own tests and documentation (Package.swift).
export SECURESTORE_DEVELOPMENT=1

serve=""
while [ $# -gt 0 ]; do
    case "$1" in
        --serve-dir) serve="$2"; shift 2 ;;
        *) echo "usage: bash scripts/docs.sh [--serve-dir DIR]" >&2; exit 64 ;;
    esac
done

bash scripts/generate-tool-reference.sh
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for target in SecureStore MigrateToolKit; do
    # DocC's own diagnostics (broken links, stale parameter names), not the
    # compiler's, which a first build may print too.
    options=(--target "$target" --warnings-as-errors --diagnostics-file "$work/$target.json")
    if [ -n "$serve" ]; then
        mkdir -p "$serve/$target"
        swift package --allow-writing-to-directory "$serve" generate-documentation "${options[@]}" \
            --disable-indexing --transform-for-static-hosting --hosting-base-path "$target" \
            --output-path "$serve/$target"
    else
        swift package generate-documentation "${options[@]}"
    fi
done
warnings="$(python3 -c 'import json, sys; print(sum(len(json.load(open(f))["diagnostics"]) for f in sys.argv[1:]))' "$work"/*.json)"
echo "docs: $warnings DocC warning(s)"
[ "$warnings" = 0 ]
