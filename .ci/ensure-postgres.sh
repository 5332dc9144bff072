#!/usr/bin/env bash
# Make sure the pool tests can run a real PostgreSQL (tests/pool/conftest.py uses the server on
# 127.0.0.1:5432 when it answers, else starts a throwaway one with initdb/pg_ctl).
# Exit 0 when a server binary (initdb) is present or has just been installed; 1 otherwise.
set -euo pipefail

have_server() {
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null
}

if have_server; then
    exit 0
fi

if command -v apt-get >/dev/null; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    echo "ensure-postgres: installing the PostgreSQL server package (apt-get install -y postgresql)" >&2
    $sudo apt-get install -y --no-install-recommends postgresql \
        || { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends postgresql; }
fi

if have_server; then
    exit 0
fi
echo "ensure-postgres: no PostgreSQL server (initdb) found and it could not be installed;" \
     "install the 'postgresql' package" >&2
exit 1
