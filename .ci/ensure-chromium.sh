#!/usr/bin/env bash
# Make sure the dealer's screen tests (tests/web) can drive Debian's chromium (/usr/bin/chromium)
# through Playwright: its own browser download is not used. Exit 0 when chromium is present or has
# just been installed (the `chromium` package); 1 otherwise, with one line saying what is missing.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    exit 0
fi

if command -v apt-get >/dev/null; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    echo "ensure-chromium: installing the browser package (apt-get install -y chromium)" >&2
    $sudo apt-get install -y --no-install-recommends chromium \
        || { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends chromium; }
fi

if [ -x /usr/bin/chromium ]; then
    exit 0
fi
echo "ensure-chromium: no /usr/bin/chromium and it could not be installed; install the 'chromium' package" >&2
exit 1
