#!/usr/bin/env bash
# The public API of SecureStore and MigrateToolKit against the release
# recorded in .api-baseline (swift package diagnose-api-breaking-changes):
# a breaking change fails, unless .api-breakage-allowlist lists it (one
# message per line, as the command prints it after "💔 ", no comments),
# which a commit does only together with its CHANGELOG.md entry.
#
# The baseline's API (what swift-api-digester dumps of the release's
# build: a commit never changes, so neither does its API for one
# compiler) is kept outside the clone, by commit and compiler version:
# SECURESTORE_API_BASELINE_DIR, or $XDG_CACHE_HOME/securestore (default
# ~/.cache/securestore)/api-baseline-<compiler hash>. The first run
# builds the release (about 100 s on 2 cores); later runs only the
# current code's API (about 10 s).
#
#   bash scripts/api-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export SECURESTORE_DEVELOPMENT=1
baseline="$(grep -v '^#' .api-baseline | grep -m1 .)"
git cat-file -e "$baseline^{commit}" 2>/dev/null || { echo "api-check: the baseline $baseline is not in this clone's history" >&2; exit 1; }
compiler="$(swift --version 2>/dev/null | sha256sum | cut -c1-12)"
baselines="${SECURESTORE_API_BASELINE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/securestore/api-baseline-$compiler}"
mkdir -p "$baselines"
swift package diagnose-api-breaking-changes "$baseline" --products SecureStore MigrateToolKit \
    --breakage-allowlist-path .api-breakage-allowlist --baseline-dir "$baselines"
echo "api-check: no breaking change since $baseline but those .api-breakage-allowlist lists"
