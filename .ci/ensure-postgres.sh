#!/usr/bin/env bash
# Make sure the pool tests can start a PostgreSQL server of their own (tests/pool/pgserver.py:
# initdb/pg_ctl in a temporary directory, a free port; as the `postgres` user when run as root).
# They never use a server already running. Exit 0 when the server binaries are present or have
# just been installed (Debian/Ubuntu: the `postgresql` package, which also makes the `postgres`
# user); 1 otherwise, with one line saying what is missing.
set -euo pipefail

have_server() {
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null
}

usable() {
    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
        echo "ensure-postgres: as root the tests start the server as the 'postgres' user, which does not exist" >&2
        return 1
    fi
}

if have_server; then
    usable
    exit $?
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
    usable
    exit $?
fi
echo "ensure-postgres: no PostgreSQL server (initdb) found and it could not be installed;" \
     "install the 'postgresql' package" >&2
exit 1
