#!/usr/bin/env bash
# Writes migrate-tool's reference article,
# Sources/MigrateToolKit/MigrateToolKit.docc/migrate-tool.md, from the
# tool's own help text (swift-argument-parser's generate-docc-reference:
# every command, option and exit code), followed by keys.example (the key
# file format). The file is generated, never edited (it is git-ignored):
# --help, the man pages and this article come from the same definitions.
set -euo pipefail
cd "$(dirname "$0")/.."
# The packages of the repository's own tests and documentation (Package.swift).
export SECURESTORE_DEVELOPMENT=1
swift build --product migrate-tool >&2
swift build --product generate-docc-reference >&2
bin="$(swift build --show-bin-path)"
catalog=Sources/MigrateToolKit/MigrateToolKit.docc
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin/generate-docc-reference" "$bin/migrate-tool" --style docc --output-directory "$work" >&2
{
    cat "$work/migrate-tool.md"
    printf '\n## Key file format\n\nThe file `--key-file` reads, as `keys.example` in the repository shows it:\n\n```\n'
    cat keys.example
    printf '```\n'
} > "$catalog/migrate-tool.md"
echo "$catalog/migrate-tool.md"
