#!/usr/bin/env bash
# The public API of SecureStore and MigrateToolKit against the release
# recorded in .api-baseline (swift package diagnose-api-breaking-changes):
# a breaking change fails, unless .api-breakage-allowlist lists it (one
# message per line, as the command prints it after "💔 ", no comments),
# which a commit does only together with its CHANGELOG.md entry. The
# baseline's build goes into .build/<triple>/apidiff, kept for the next run.
#
#   bash scripts/api-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export SECURESTORE_DEVELOPMENT=1
baseline="$(grep -v '^#' .api-baseline | grep -m1 .)"
git cat-file -e "$baseline^{commit}" 2>/dev/null || { echo "api-check: the baseline $baseline is not in this clone's history" >&2; exit 1; }
swift package diagnose-api-breaking-changes "$baseline" --products SecureStore MigrateToolKit \
    --breakage-allowlist-path .api-breakage-allowlist
echo "api-check: no breaking change since $baseline but those .api-breakage-allowlist lists"
