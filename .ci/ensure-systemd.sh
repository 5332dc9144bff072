#!/usr/bin/env bash
# Make sure the unit's hardening test (tests/daemon/test_systemd_files.py) can run
# `systemd-analyze security --offline=true` (/usr/bin/systemd-analyze, from the `systemd` package).
# Exit 0 when it is present or has just been installed; 1 otherwise, with one line saying what is missing.
set -euo pipefail

if [ -x /usr/bin/systemd-analyze ]; then
    exit 0
fi

if command -v apt-get >/dev/null; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    echo "ensure-systemd: installing systemd-analyze (apt-get install -y systemd)" >&2
    $sudo apt-get install -y --no-install-recommends systemd \
        || { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends systemd; }
fi

if [ -x /usr/bin/systemd-analyze ]; then
    exit 0
fi
echo "ensure-systemd: no /usr/bin/systemd-analyze and it could not be installed; install the 'systemd' package" >&2
exit 1
