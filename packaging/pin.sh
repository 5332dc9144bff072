#!/usr/bin/env bash
# Print a requirements file with the SHA-256 of each wheel of the given exact pins, as
# requirements/*.txt hold them (Linux x86_64, CPython 3.11; needs the network).
#   packaging/pin.sh pyserial==3.5 structlog==26.1.0 > requirements/table.txt   (then restore the header)
set -euo pipefail
python=${PYTHON:-python3.11}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 --implementation cp \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    --dest "$dir" "$@"
"$python" - "$dir" "$@" <<'PY'
import hashlib, pathlib, re, sys
wheels = sorted(pathlib.Path(sys.argv[1]).glob("*.whl"))
for pin in sys.argv[2:]:
    name, version = pin.split("==")
    key = re.sub(r"[-_.]+", "_", name).lower()
    hashes = [hashlib.sha256(w.read_bytes()).hexdigest() for w in wheels
              if w.name.lower().startswith(f"{key}-{version}-")]
    print(f"{pin} \\\n" + " \\\n".join(f"    --hash=sha256:{h}" for h in hashes))
PY
