# Sourced by the scripts that build SecureStore: chooses the SQLCipher line.
#
#   SECURESTORE_SQLCIPHER=3   Debian 12's libsqlcipher-dev 3.4.1 (the default)
#   SECURESTORE_SQLCIPHER=4   Debian 13's SQLCipher 4.6.1, built from its
#                             source package by scripts/sqlcipher4.sh
#
# A script's `--sqlcipher 3|4` argument sets it too: call
# `sqlcipher_line_parse_args "$@"` and use "${sqlcipher_args[@]}" as the
# remaining arguments.
#
# Sets:
#   sqlcipher_line       3 or 4
#   swift_line_flags     flags for `swift build` / `swift test`: on the 4.x
#                        line its own build folder (.build-sqlcipher4), its
#                        headers before the system's, -L and an rpath to
#                        its library
#   swift_line_cflags    the same without the build folder, for packages
#                        outside the project that depend on it
# and on the 4.x line puts its `sqlcipher` CLI first on PATH and its
# pkg-config file first on PKG_CONFIG_PATH.

# The packages only this repository's tests and documentation use are
# declared when this is set (Package.swift): every script that builds the
# project sets it, an app that depends on SecureStore never does.
export SECURESTORE_DEVELOPMENT=1

sqlcipher_line_parse_args() {
    sqlcipher_args=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --sqlcipher) SECURESTORE_SQLCIPHER="${2:?--sqlcipher needs 3 or 4}"; shift 2 ;;
            --sqlcipher=*) SECURESTORE_SQLCIPHER="${1#--sqlcipher=}"; shift ;;
            *) sqlcipher_args+=("$1"); shift ;;
        esac
    done
    sqlcipher_line_setup
}

sqlcipher_line_setup() {
    sqlcipher_line="${SECURESTORE_SQLCIPHER:-3}"
    export SECURESTORE_SQLCIPHER="$sqlcipher_line"
    case "$sqlcipher_line" in
        3)
            swift_line_flags=()
            swift_line_cflags=()
            ;;
        4)
            local root prefix
            root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
            prefix="$(bash "$root/scripts/sqlcipher4.sh")"
            export PATH="$prefix/bin:$PATH"
            export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
            export SECURESTORE_SQLCIPHER_PREFIX="$prefix"
            swift_line_cflags=(
                -Xcc "-I$prefix/include"
                -Xlinker "-L$prefix/lib" -Xlinker -rpath -Xlinker "$prefix/lib"
            )
            swift_line_flags=(--scratch-path "$root/.build-sqlcipher4" "${swift_line_cflags[@]}")
            ;;
        *)
            echo "error: SECURESTORE_SQLCIPHER (--sqlcipher) must be 3 or 4, not '$sqlcipher_line'" >&2
            return 64
            ;;
    esac
}
