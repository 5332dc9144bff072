"""The install steps of docs/operations.md, their command lines run as written, into a throwaway root.

A wheelhouse is built as on a connected machine (step 1: packaging/build-wheelhouse.sh with the
release key: the tabled wheel, the pinned, hashed wheels of requirements/*.txt, the signed
manifest; pip may use its cache or the index here), then step 2's install.sh installs from it
alone into a temporary folder used as the root, with no index and every network connection
refused, and the installed ``tabled`` checks the installed config as a start does."""

from __future__ import annotations

import json
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: what the installed tabled is started with to show it works ({config}: the installed config)
SMOKE_COMMAND = ["config", "check", "{config}"]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def run(argv: list[str], **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{' '.join(map(str, argv))}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def offline_env() -> dict[str, str]:
    """pip with no configuration (no index, no extra find-links) and every connection refused."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    refused = "http://127.0.0.1:9"
    env.update(PIP_CONFIG_FILE=os.devnull, HTTP_PROXY=refused, HTTPS_PROXY=refused, http_proxy=refused,
               https_proxy=refused, PYTHON=getattr(sys, "_base_executable", sys.executable))
    return env


@pytest.fixture(scope="module")
def release_key(tmp_path_factory) -> Path:
    """The release's Ed25519 private key, as the release machine holds it."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    path = tmp_path_factory.mktemp("release") / "release.key"
    path.write_bytes(Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return path


#: docs/operations.md's own paths, replaced by the test's folders when its lines are run
DOC_WHEELHOUSE = "/media/usb/tabled-wheelhouse"
DOC_RELEASE_KEY = "/srv/release/release.key"


def documented_lines(step: str) -> list[str]:
    """The command lines of the shell block under ``step`` in docs/operations.md ("**1. On a
    connected machine**"), comments and blank lines left out."""
    text = (ROOT / "docs" / "operations.md").read_text()
    block = text.split(step, 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory, release_key) -> Path:
    """Step 1 of docs/operations.md, its command line as written, in a checkout."""
    dest = tmp_path_factory.mktemp("wheelhouse")
    leftovers = [ROOT / "build", ROOT / "tabled.egg-info"]
    before = [p.exists() for p in leftovers]
    (line,) = documented_lines("**1. On a connected machine**")
    assert DOC_WHEELHOUSE in line and DOC_RELEASE_KEY in line, line
    run(["bash", "-c", line.replace(DOC_WHEELHOUSE, str(dest)).replace(DOC_RELEASE_KEY, str(release_key))],
        cwd=ROOT, env={**os.environ, "PYTHON": sys.executable})
    assert [p.exists() for p in leftovers] == before, "the build wrote into the checkout"
    return dest


@pytest.fixture(scope="module")
def installed(wheelhouse, tmp_path_factory) -> Path:
    """Step 2 of docs/operations.md, its command line as written, with ``--root`` (the same steps
    into another root, as the docs say)."""
    root = tmp_path_factory.mktemp("root")
    (line,) = documented_lines("**2. On the table PC**")
    assert line.endswith("./install.sh"), line
    run(["bash", "-c", f"{line.replace(DOC_WHEELHOUSE, str(wheelhouse))} --root {root}"], env=offline_env(), cwd=root)
    return root


def test_a_wheelhouse_without_the_release_key_is_refused_saying_why(tmp_path):
    done = subprocess.run(["bash", str(ROOT / "packaging" / "build-wheelhouse.sh"), str(tmp_path)],
                          capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                               if k != "RELEASE_KEY"})
    assert done.returncode == 2 and list(tmp_path.iterdir()) == []
    assert "RELEASE_KEY=FILE must name the release's Ed25519 private key" in done.stderr


def test_the_wheelhouse_holds_the_pinned_wheels_and_their_hashes(wheelhouse):
    wheels = sorted(p.name for p in wheelhouse.glob("*.whl"))
    pins = [line.split()[0] for line in (ROOT / "requirements" / "table.txt").read_text().splitlines()
            if line and not line.startswith((" ", "#"))]
    assert len(wheels) == len(pins) + 1 and any(w.startswith("tabled-") for w in wheels), wheels
    required = (wheelhouse / "requirements.txt").read_text()
    assert required.count("--hash=sha256:") == len(wheels)
    assert all(pin in required for pin in pins)


def test_the_wheel_carries_its_licence_and_the_project_files_it_needs(wheelhouse):
    wheel = next(wheelhouse.glob("tabled-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: LicenseRef-Proprietary" in metadata
    assert "tabled/profiles/nsw.toml" in names and "tabled/examples/round.json" in names
    assert "tabled/web_assets/index.html" in names and "tabled/web_assets/screen.js" in names
    assert "tabled_drivers/link/usb.py" in names and "tabled_drivers/sim/__main__.py" in names
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"tabled", "tabled_drivers"}, top  # no generic top-level name such as "drivers"


def test_install_from_the_wheelhouse_alone_into_a_throwaway_root(installed):
    venv = installed / "opt" / "tabled" / ".venv"
    config = installed / "etc" / "tabled" / "tabled.toml"
    assert (venv / "bin" / "tabled").exists()
    assert config.read_text() == (ROOT / "config" / "hardware.toml").read_text()
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert stat.S_IMODE((installed / "etc" / "tabled").stat().st_mode) == 0o750
    assert any(line.startswith("tabled:") for line in (installed / "etc" / "passwd").read_text().splitlines())
    assert (installed / "etc" / "systemd" / "system" / "tabled.service").exists()
    assert (installed / "etc" / "udev" / "rules.d" / "99-tabled.rules").exists()
    # a table with a local pool gets no extra
    for module in ("numpy", "psycopg", "matplotlib", "tqdm"):
        probe = subprocess.run([str(venv / "bin" / "python"), "-c", f"import {module}"], capture_output=True)
        assert probe.returncode != 0, f"{module} installed without its extra"
    # the installed tabled makes every check a start makes on the installed config (not the
    # checkout's tabled: run from the root, with nothing on PYTHONPATH), the release manifest
    # included; the config names its files where they are on the table PC, here under the root
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TABLED_CONFIG")}
    in_root = installed / "tabled-in-root.toml"
    in_root.write_text(config.read_text().replace('"/opt/tabled/', f'"{installed}/opt/tabled/')
                       .replace('"/etc/tabled/', f'"{installed}/etc/tabled/'))
    argv = [str(venv / "bin" / "tabled"), *(a.format(config=in_root) for a in SMOKE_COMMAND)]
    done = run(argv, env=env, cwd=installed)
    assert "Traceback" not in done.stderr and ": valid." in done.stdout
    where = run([str(venv / "bin" / "python"), "-c", "import tabled; print(tabled.__file__)"], env=env, cwd=installed)
    assert where.stdout.strip().startswith(str(venv))


def test_the_build_ships_every_folder_of_tabled_as_a_package_without_a_warning(tmp_path):
    """setuptools warns, for each data folder not listed as a package, some 45 lines a folder on
    every install (`make run`'s first)."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "var",
                                                             "__pycache__"))
    done = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(tmp_path / "wheel"), str(src)])
    assert "is absent from the `packages` configuration" not in done.stdout + done.stderr
    with zipfile.ZipFile(next((tmp_path / "wheel").glob("tabled-*.whl"))) as z:
        assert {"tabled/examples/round.json", "tabled/web_assets/index.html"} <= set(z.namelist())


def test_the_documentation_the_units_name_is_installed(installed):
    named = [line.split("file:", 1)[1].strip() for unit in (ROOT / "systemd").glob("*.service")
             for line in unit.read_text().splitlines() if line.startswith("Documentation=file:")]
    assert "/opt/tabled/docs/operations.md" in named
    assert [p for p in named if not (installed / p.lstrip("/")).is_file()] == []


def test_the_journal_signing_key_is_roots_alone_and_handed_to_the_service_as_a_credential(installed):
    key = installed / "etc" / "tabled" / "journal-signing.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and b"PRIVATE KEY" in key.read_bytes()
    assert b"PUBLIC KEY" in (installed / "etc" / "tabled" / "journal-signing.pub").read_bytes()
    drop_in = installed / "etc" / "systemd" / "system" / "tabled.service.d" / "journal-signing.conf"
    assert drop_in.read_text() == "[Service]\nLoadCredential=journal-signing-key:/etc/tabled/journal-signing.key\n"


def test_install_again_keeps_the_edited_config(wheelhouse, installed):
    config = installed / "etc" / "tabled" / "tabled.toml"
    config.write_text(config.read_text() + "\n# edited on the table PC\n")
    run(["bash", str(wheelhouse / "install.sh"), "--root", str(installed)], env=offline_env(), cwd=installed)
    assert config.read_text().endswith("# edited on the table PC\n")
    # each run left its record for the journal (25 CFR 547.12): the install, then this upgrade
    spool = installed / "var" / "lib" / "tabled" / "installs"
    records = sorted((json.loads(p.read_text()) for p in spool.glob("*.json")), key=lambda r: r["what"])
    assert [(r["what"], r["result"]) for r in records] == [("install", "installed"), ("upgrade", "installed")]
    manifest = hashlib.sha256((installed / "opt" / "tabled" / "manifest.json").read_bytes()).hexdigest()
    assert all(r["manifest_sha256"] == manifest and r["version"] and r["by"] and r["components"] for r in records)


def test_the_linked_pins_match_their_hashes(tmp_path):
    """requirements/linked.txt's wheels download and check out against their hashes."""
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--require-hashes",
         "--dest", str(tmp_path), "--requirement", str(ROOT / "requirements" / "linked.txt")])
    assert len(list(tmp_path.glob("*.whl"))) == 2  # psycopg, psycopg-binary


def test_the_installed_software_is_verified_and_a_changed_byte_is_named(installed):
    """The wheelhouse carries the release's signed manifest and public key (RELEASE_KEY), install.sh
    puts them in place, and `tabled verify software` checks the installed copy; one byte of an
    installed library changed is named (docs/verification.md)."""
    venv = installed / "opt" / "tabled" / ".venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TABLED_CONFIG")}
    check = [str(venv / "bin" / "tabled"), "verify", "software", "--manifest",
             str(installed / "opt" / "tabled" / "manifest.json"),
             "--release-key", str(installed / "etc" / "tabled" / "release-key.pub")]
    assert run(check, env=env, cwd=installed).stdout.startswith("software verified: ")
    victim = next((venv / "lib").glob("python3*/site-packages/structlog/_config.py"))
    victim.write_bytes(victim.read_bytes().replace(b"def ", b"def  ", 1))
    done = subprocess.run(check, capture_output=True, text=True, env=env, cwd=installed)
    assert done.returncode == 1 and "changed: structlog-" in done.stdout and "/structlog/_config.py" in done.stdout


def test_the_type_checker_pins_match_their_hashes(tmp_path):
    """requirements/types.txt's wheels (mypy and what it needs) download and check out against their hashes."""
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--require-hashes",
         "--dest", str(tmp_path), "--requirement", str(ROOT / "requirements" / "types.txt")])
    assert len(list(tmp_path.glob("*.whl"))) == 6
