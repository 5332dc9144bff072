#!/usr/bin/env bash
# On the table PC, offline, as root, from a wheelhouse made by packaging/build-wheelhouse.sh:
#   ./install.sh                 # in the wheelhouse folder: install into /
#   ./install.sh --root DIR      # the same into another root (an image being built, or a test)
# Installs the code in a virtualenv at /opt/tabled/.venv from the wheelhouse only (--no-index,
# every wheel checked against requirements.txt's hashes), the system user, the config template
# (kept when one is there already), the udev rules and the unit. It starts nothing: edit
# /etc/tabled/tabled.toml and the udev rules' serial numbers, then `systemctl enable --now tabled`.
# Each run, an upgrade too, leaves its record (start, end, versions, the manifest's digest, who, and
# whether it succeeded) in the install spool beside the journal ($TABLED_INSTALL_SPOOL, default
# /var/lib/tabled/installs): the daemon journals it at its next start (tabled install-record).
set -euo pipefail
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
here=$(cd "$(dirname "$0")" && pwd)
root=/
if [ "${1:-}" = --root ]; then root=${2:?--root needs a folder}; fi
root=$(cd "$root" && pwd)
python=${PYTHON:-python3.11}
venv="$root/opt/tabled/.venv"
spool="$root${TABLED_INSTALL_SPOOL:-/var/lib/tabled/installs}"
what=install
if [ -x "$venv/bin/tabled" ]; then what=upgrade; fi

fail() { echo "install.sh: $*" >&2; exit 1; }

# the install's record, whatever the outcome, once the code that writes it is there
record() {
    local result=$1
    if [ -x "$venv/bin/tabled" ]; then
        "$venv/bin/tabled" install-record --spool "$spool" --started "$started" --result "$result" --what "$what" \
            --manifest "$root/opt/tabled/manifest.json" || echo "install.sh: warning: the install record was not written" >&2
        if [ "$(id -u)" -eq 0 ] && [ -n "${gid:-}" ]; then chgrp -R "$gid" "$spool" && chmod 2770 "$spool"; fi
    fi
}
trap 'status=$?; if [ $status -ne 0 ]; then record failed; fi' EXIT

command -v "$python" >/dev/null || fail "$python not found: install Python 3.11 (Debian/Ubuntu: python3.11 python3.11-venv)"
"$python" -c 'import ensurepip, venv' 2>/dev/null || fail "$python cannot make a virtualenv: install python3.11-venv"
command -v systemd-sysusers >/dev/null || fail "systemd-sysusers not found: tabled runs as a systemd service (install systemd)"
if ! ldconfig -p 2>/dev/null | grep -q 'libusb-1\.0\.so\.0'; then
    msg="the libusb-1.0 library is not installed (Debian/Ubuntu: libusb-1.0-0): the card shoe and the dealer panel need it"
    if [ "$root" = / ]; then fail "$msg"; fi
    echo "install.sh: warning: $msg" >&2
fi

# the code: a virtualenv of its own, filled from the wheelhouse alone
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --no-index --find-links "$here" --require-hashes \
    --requirement "$here/requirements.txt"

# the system user (systemd-sysusers reads $root/usr/lib/sysusers.d and writes $root/etc)
install -D -m 0644 "$here/systemd/tabled.sysusers.conf" "$root/usr/lib/sysusers.d/tabled.conf"
mkdir -p "$root/etc"
if [ "$root" = / ]; then systemd-sysusers; else systemd-sysusers --root="$root"; fi
gid=$(awk -F: '$1 == "tabled" { print $3 }' "$root/etc/group")
[ -n "$gid" ] || fail "systemd-sysusers did not create the group tabled in $root/etc/group"

# the configuration: readable by the service's group only; an existing one is kept
install -d -m 0750 "$root/etc/tabled"
if [ ! -e "$root/etc/tabled/tabled.toml" ]; then
    install -m 0640 "$here/config/hardware.toml" "$root/etc/tabled/tabled.toml"
fi
if [ "$(id -u)" -eq 0 ]; then chgrp "$gid" "$root/etc/tabled" "$root/etc/tabled/tabled.toml"; fi

# the release's signed manifest and its public key, when the wheelhouse carries them: every start
# checks the installed files against them (docs/verification.md)
for f in manifest.json manifest.json.sig; do
    if [ -e "$here/$f" ]; then install -D -m 0644 "$here/$f" "$root/opt/tabled/$f"; fi
done
if [ -e "$here/release-key.pub" ]; then install -m 0644 "$here/release-key.pub" "$root/etc/tabled/release-key.pub"; fi

# the journal's signing key (docs/verification.md, "Sealed journal"): made here once, readable by
# root alone; systemd hands it to the service as a credential, so neither the config nor the journal
# ever holds it. The public key is what an auditor checks the journal with.
key="$root/etc/tabled/journal-signing.key"
if [ ! -e "$key" ]; then
    (umask 077 && "$venv/bin/python" - "$key" "$root/etc/tabled/journal-signing.pub" <<'PY'
import sys
from cryptography.hazmat.primitives import serialization as s
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
key = Ed25519PrivateKey.generate()
open(sys.argv[1], "wb").write(key.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()))
open(sys.argv[2], "wb").write(key.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo))
PY
    )
    chmod 0600 "$key"
    chmod 0644 "$root/etc/tabled/journal-signing.pub"
fi
install -d -m 0755 "$root/etc/systemd/system/tabled.service.d"
printf '[Service]\nLoadCredential=journal-signing-key:/etc/tabled/journal-signing.key\n' \
    > "$root/etc/systemd/system/tabled.service.d/journal-signing.conf"
# the passwords of the table's own database roles (docs/linked-pools.md, "Least privilege"): the
# linked pool's (pool-password) and the central journal's (journal-central-password), each in a
# file only root reads, handed over as credentials: the config never holds a password. systemd
# refuses to start a unit whose credential file is missing, so a line is written only for a file
# that is there (put it there, then run this again).
for credential in pool-password journal-central-password; do
    conf="$root/etc/systemd/system/tabled.service.d/$credential.conf"
    if [ -e "$root/etc/tabled/$credential" ]; then
        chmod 0600 "$root/etc/tabled/$credential"
        printf '[Service]\nLoadCredential=%s:/etc/tabled/%s\n' "$credential" "$credential" > "$conf"
    else
        rm -f "$conf"
    fi
done

# the documentation the unit names (Documentation=file:/opt/tabled/docs/...)
install -d -m 0755 "$root/opt/tabled/docs"
install -m 0644 "$here"/docs/*.md "$root/opt/tabled/docs/"

# devices and the unit
install -D -m 0644 "$here/systemd/99-tabled.rules" "$root/etc/udev/rules.d/99-tabled.rules"
install -D -m 0644 "$here/systemd/tabled.service" "$root/etc/systemd/system/tabled.service"
if [ "$root" = / ]; then
    udevadm control --reload && udevadm trigger
    systemctl daemon-reload
fi
record installed
echo "installed tabled $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("tabled"))') in $venv"
echo "next: edit $root/etc/tabled/tabled.toml and the serial numbers in $root/etc/udev/rules.d/99-tabled.rules,"
echo "      then: systemctl enable --now tabled"
