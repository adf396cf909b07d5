#!/usr/bin/env bash
# Installs what SecureStore needs from Debian's packages, if it is missing:
# SQLCipher's headers and library, OpenSSL's headers, the sqlcipher and sqlite3 CLIs (used by
# the tests as independent clients), pkg-config, Python's venv.
set -euo pipefail

missing=()
pkg-config --exists sqlcipher 2>/dev/null || missing+=(libsqlcipher-dev)
# libcrypto's headers: DatabasePool derives keys with OpenSSL's PBKDF2.
[ -f /usr/include/openssl/evp.h ] || missing+=(libssl-dev)
command -v sqlcipher >/dev/null 2>&1 || missing+=(sqlcipher)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
# Python with venv: the interoperability tests' independent SQLCipher 4
# client (scripts/python-sqlcipher.sh) lives in a virtual environment.
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "error: run as root, or install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
