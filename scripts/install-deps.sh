#!/usr/bin/env bash
# Installs what SecureStore needs from Debian's packages, if it is missing:
# SQLCipher's headers and library, OpenSSL's headers, the sqlcipher and sqlite3 CLIs (used by
# the tests as independent clients), pkg-config, Python's venv, and for the
# key-hygiene tests a C compiler, gdb (gcore) and util-linux's setpriv; curl
# for the example service's end-to-end test.
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
# CoreDumpTests: a C baseline (cc), cores of running processes (gcore);
# ProcessHygieneTests: processes without capabilities (setpriv).
command -v cc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
command -v gcore >/dev/null 2>&1 || missing+=(gdb)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
command -v curl >/dev/null 2>&1 || missing+=(curl)
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
