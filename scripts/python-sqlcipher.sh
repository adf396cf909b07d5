#!/usr/bin/env bash
# Prepares an independent SQLCipher 4 client for the interoperability
# tests: PyPI's sqlcipher3-binary (its own SQLCipher 4.x and SQLite, built by
# others) in a virtual environment outside the project, and prints the
# path of its Python.
#
#   bash scripts/python-sqlcipher.sh          # create once, print the interpreter
#
# The environment is cached: SECURESTORE_PYTHON_SQLCIPHER_VENV, or
# $XDG_CACHE_HOME/securestore (default ~/.cache/securestore)/sqlcipher3-venv.
set -euo pipefail

version="0.6.0"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/securestore"
venv="${SECURESTORE_PYTHON_SQLCIPHER_VENV:-$cache/sqlcipher3-venv-$version}"
python="$venv/bin/python"

works() { "$python" -c "import sqlcipher3" >/dev/null 2>&1; }
if works; then echo "$python"; exit 0; fi

command -v python3 >/dev/null 2>&1 || { echo "error: python3 is needed for the interoperability tests" >&2; exit 69; }
mkdir -p "$(dirname "$venv")"
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "sqlcipher3-binary==$version" >&2
works || { echo "error: sqlcipher3-binary $version did not install into $venv" >&2; exit 69; }
echo "$python"
