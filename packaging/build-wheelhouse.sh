#!/usr/bin/env bash
# On a connected machine like the table PC (Linux x86_64, Python 3.11), from a checkout: everything
# the table PC installs, offline, from one folder (docs/operations.md, "Install"):
#   packaging/build-wheelhouse.sh DEST [linked]
# DEST gets the tabled wheel, every wheel it needs (the exact pins of requirements/*.txt, checked
# against their hashes as they are downloaded), requirements.txt (those pins plus the tabled
# wheel's own hash), the signed release manifest and the release's public key (RELEASE_KEY=FILE: the
# release's Ed25519 private key, required: the installed config checks the manifest at every start),
# the systemd unit, udev rules and sysusers entry, the config template, the documentation and install.sh. "linked" adds
# the PostgreSQL client (a linked progressive pool).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: RELEASE_KEY=FILE packaging/build-wheelhouse.sh DEST [linked]}
if [ -z "${RELEASE_KEY:-}" ] || [ ! -f "$RELEASE_KEY" ]; then
    echo "build-wheelhouse.sh: RELEASE_KEY=FILE must name the release's Ed25519 private key${RELEASE_KEY:+ (no file $RELEASE_KEY)}:" \
         "the table checks the release's signed manifest at every start and does not start without one" \
         "(docs/verification.md)" >&2
    exit 2
fi
python=${PYTHON:-python3.11}
reqs=("$repo/requirements/table.txt")
if [ "${2:-}" = linked ]; then reqs+=("$repo/requirements/linked.txt"); fi

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
rm -f "$dest"/tabled-*.whl
# built from a copy of the sources: nothing left over in the checkout (build/, *.egg-info) can
# slip into the wheel, and the build writes nothing into the checkout
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
tar -C "$repo" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' --exclude=./var \
    --exclude=__pycache__ -cf - . | tar -C "$src" -xf -
"$python" -m pip wheel --quiet --no-deps --wheel-dir "$dest" "$src"
"$python" -m pip download --quiet --no-deps --only-binary=:all: --require-hashes --dest "$dest" \
    $(printf -- '--requirement %s ' "${reqs[@]}")

wheel=$(ls "$dest"/tabled-*.whl)
version=$(basename "$wheel" | cut -d- -f2)
{
    cat "${reqs[@]}"
    printf 'tabled==%s \\\n    --hash=sha256:%s\n' "$version" "$(sha256sum "$wheel" | cut -d' ' -f1)"
} > "$dest/requirements.txt"

# the release's manifest: the wheelhouse is installed into a throwaway virtualenv and every file of
# it is listed and signed with RELEASE_KEY (the Ed25519 private key, on the release machine only)
{
    venv=$(mktemp -d)
    "$python" -m venv "$venv/v"
    "$venv/v/bin/python" -m pip install --quiet --no-index --find-links "$dest" --require-hashes \
        --requirement "$dest/requirements.txt"
    "$venv/v/bin/tabled" verify manifest --private-key "$RELEASE_KEY" --release "$version" --output "$dest/manifest.json"
    "$venv/v/bin/python" - "$RELEASE_KEY" "$dest/release-key.pub" <<'PY'
import sys
from cryptography.hazmat.primitives import serialization as s
key = s.load_pem_private_key(open(sys.argv[1], "rb").read(), password=None)
open(sys.argv[2], "wb").write(key.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo))
PY
    rm -rf "$venv"
}

mkdir -p "$dest/systemd" "$dest/config" "$dest/docs"
cp "$repo"/docs/*.md "$dest/docs/"   # the units' Documentation=
cp "$repo"/systemd/tabled.service "$repo"/systemd/99-tabled.rules "$repo"/systemd/tabled.sysusers.conf "$dest/systemd/"
cp "$repo/config/hardware.toml" "$dest/config/"
cp "$repo/packaging/install.sh" "$dest/"
echo "wheelhouse $dest: $(ls "$dest"/*.whl | wc -l) wheels; copy it to the table PC and run install.sh there"
