#!/usr/bin/env bash
# Can an app add SecureStore beside what it already uses? Scratch consumer
# packages, outside the project, depend on this checkout of SecureStore (by
# path) and on:
#   1. Hummingbird 2 and JWTKit 5 (`from: "2.0.0"`, `from: "5.0.0"`),
#   2. Vapor 4 and JWT 5,
#   3. each of SecureStore's own dependencies pinned at the lowest version
#      Package.swift declares (the other end of each range, the newest in
#      the package mirror, is what every build of the project resolves);
# `swift package resolve` must succeed for each. Nothing is built: the
# example service (scripts/example-service.sh) builds the first.
#
#   bash scripts/consumer-resolution.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
# SecureStore as an app sees it: without the packages of its own tests and
# documentation (Package.swift).
unset SECURESTORE_DEVELOPMENT
work="$(mktemp -d "${TMPDIR:-/tmp}/securestore-consumers.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# consumer NAME DEPENDENCIES: a package that depends on SecureStore and on
# DEPENDENCIES (lines of .package(...)), resolved.
consumer() {
    local name="$1" dependencies="$2" folder="$work/$1"
    mkdir -p "$folder/Sources/$name"
    cat > "$folder/Package.swift" <<EOF
// swift-tools-version: 6.2
import PackageDescription
let package = Package(
    name: "$name",
    dependencies: [
        .package(name: "SecureStore", path: "$root"),
$dependencies
    ],
    targets: [.executableTarget(name: "$name", dependencies: [.product(name: "SecureStore", package: "SecureStore")])]
)
EOF
    echo 'import SecureStore' > "$folder/Sources/$name/main.swift"
    if (cd "$folder" && swift package resolve >"$work/$name.log" 2>&1); then
        echo "consumer-resolution: $name resolves: $(python3 -c '
import json, sys
pins = json.load(open(sys.argv[1]))["pins"]
shown = [p for p in pins if p["identity"] in ("hummingbird", "jwt-kit", "vapor", "jwt", "swift-crypto", "swift-log",
                                              "swift-argument-parser", "swift-collections")]
print(str(len(pins)) + " packages; " + ", ".join(p["identity"] + " " + p["state"].get("version", "?") for p in shown))
' "$folder/Package.resolved")"
    else
        echo "consumer-resolution: FAILED: $name does not resolve:" >&2
        cat "$work/$name.log" >&2
        failed=1
    fi
}

failed=0
consumer hummingbird-jwt '        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.0.0"),'
consumer vapor-jwt '        .package(url: "https://github.com/vapor/vapor", from: "4.0.0"),
        .package(url: "https://github.com/vapor/jwt", from: "5.0.0"),'

# The lowest end of each range SecureStore declares (Package.swift's
# `from:` versions), pinned.
lowest=""
while read -r url version; do
    lowest+="        .package(url: \"$url\", exact: \"$version\"),"$'\n'
done < <(sed '/^if ProcessInfo/,$d' Package.swift | grep -oE '\.package\(url: "[^"]+", from: "[^"]+"\)' | sed -E 's/.*url: "([^"]+)", from: "([^"]+)".*/\1 \2/')
consumer lowest-versions "${lowest%$'\n'}"
[ "$failed" -eq 0 ]
