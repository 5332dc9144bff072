"""The installed software against its signed release manifest, and the inspector's challenge."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.cli import main
from tabled.host import software
from tabled.host.software import InstalledFile, SoftwareError


def key_pair(tmp_path: Path, name: str) -> tuple[Path, Path]:
    key = Ed25519PrivateKey.generate()
    private, public = tmp_path / f"{name}.key", tmp_path / f"{name}.pub"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


@pytest.fixture
def release(tmp_path):
    """A small installed release: a module of the package, a profile, a dependency's module."""
    root = tmp_path / "site"
    contents = {"tabled/tabled/game/cards.py": b"ACE = 12\n", "tabled/tabled/profiles/nsw.toml": b"name = 'nsw'\n",
                "structlog-26.1.0/structlog/_base.py": b"class BoundLogger: ...\n"}
    files = []
    for name, data in contents.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        files.append(InstalledFile(name, path))
    private, public = key_pair(tmp_path, "release")
    manifest = tmp_path / "manifest.json"
    manifest.write_bytes(software.manifest_document("1.0.0", files))
    signature = tmp_path / "manifest.json.sig"
    signature.write_bytes(software.sign_manifest(manifest.read_bytes(), private.read_bytes()))
    return files, manifest, signature, public


def test_the_release_as_installed_is_verified(release):
    files, manifest, signature, public = release
    verdict = software.verify(manifest, signature, public, files)
    assert verdict.verified and verdict.release == "1.0.0" and verdict.files == 3


@pytest.mark.parametrize("name", ["tabled/tabled/game/cards.py", "tabled/tabled/profiles/nsw.toml",
                                  "structlog-26.1.0/structlog/_base.py"])
def test_one_byte_changed_in_the_package_a_profile_or_a_dependency_is_named(release, name):
    files, manifest, signature, public = release
    path = next(f.path for f in files if f.name == name)
    data = bytearray(path.read_bytes())
    data[0] ^= 1
    path.write_bytes(bytes(data))
    verdict = software.verify(manifest, signature, public, files)
    assert not verdict.verified and verdict.changed == [name] and verdict.problems() == [f"changed: {name}"]


def test_a_missing_file_and_an_added_file_are_named(release, tmp_path):
    files, manifest, signature, public = release
    extra = tmp_path / "site" / "tabled" / "tabled" / "backdoor.py"
    extra.write_text("import os\n")
    changed = [*files[1:], InstalledFile("tabled/tabled/backdoor.py", extra)]
    verdict = software.verify(manifest, signature, public, changed)
    assert verdict.missing == [files[0].name] and verdict.added == ["tabled/tabled/backdoor.py"]


def test_a_manifest_signed_by_another_key_is_refused(release, tmp_path):
    files, manifest, signature, _ = release
    _, other_public = key_pair(tmp_path, "other")
    with pytest.raises(SoftwareError, match="not the release key's"):
        software.verify(manifest, signature, other_public, files)


def test_a_manifest_changed_after_signing_is_refused(release):
    files, manifest, signature, public = release
    body = json.loads(manifest.read_bytes())
    body["files"]["tabled/tabled/game/cards.py"] = hashlib.sha256(b"anything").hexdigest()
    manifest.write_bytes(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    with pytest.raises(SoftwareError, match="not the release key's"):
        software.verify(manifest, signature, public, files)


def test_a_key_that_is_not_ed25519_or_not_a_key_is_a_clear_error(release, tmp_path):
    files, manifest, signature, _ = release
    junk = tmp_path / "junk.pub"
    junk.write_text("not a key\n")
    with pytest.raises(SoftwareError, match="cannot be read"):
        software.verify(manifest, signature, junk, files)


def independent_hmac(challenge: str, files: list[tuple[str, bytes]]) -> str:
    """docs/verification.md's definition, written again with the standard library only."""
    message = b"".join(name.encode() + b"\x00" + len(data).to_bytes(8, "big") + data for name, data in files)
    return hmac.new(challenge.encode(), message, hashlib.sha256).hexdigest()


def test_the_challenge_answer_is_the_documented_hmac(release):
    files = release[0]
    expected = independent_hmac("4711-inspector", [(f.name, f.path.read_bytes()) for f in files])
    assert software.challenge_answer("4711-inspector", files) == expected


@settings(max_examples=30, deadline=None)
@given(challenge=st.text(min_size=1).filter(str.strip), other=st.text(min_size=1).filter(str.strip))
def test_every_challenge_gives_its_own_answer(tmp_path_factory, challenge, other):
    path = tmp_path_factory.mktemp("c") / "f.py"
    path.write_bytes(b"x = 1\n")
    files = [InstalledFile("tabled/tabled/f.py", path)]
    answer = software.challenge_answer(challenge, files)
    assert answer == independent_hmac(challenge, [("tabled/tabled/f.py", b"x = 1\n")])
    assert (answer == software.challenge_answer(other, files)) == (challenge == other)


def test_an_empty_challenge_is_refused(release):
    with pytest.raises(SoftwareError, match="empty"):
        software.challenge_answer("  ", release[0])


def test_the_installed_files_are_the_package_its_profiles_and_its_libraries():
    names = [f.name for f in software.installed_files()]
    assert names == sorted(names)
    assert "tabled/tabled/game/ranking.py" in names and "tabled/tabled/profiles/nsw.toml" in names
    assert "tabled/tabled_drivers/link/codec.py" in names
    libraries = {n.split("/")[0].rsplit("-", 1)[0] for n in names}
    assert {"structlog", "pyserial", "pyusb", "python-statemachine", "cryptography"} <= libraries
    assert not any("__pycache__" in n or n.endswith((".pyc", "/RECORD")) for n in names)


@pytest.mark.slow
def test_tabled_verify_software_through_the_command(tmp_path, capsys):
    private, public = key_pair(tmp_path, "release")
    manifest = tmp_path / "manifest.json"
    assert main(["verify", "manifest", "--private-key", str(private), "--release", "2.0.0",
                 "--output", str(manifest)]) == 0
    capsys.readouterr()
    assert main(["verify", "software", "--manifest", str(manifest), "--release-key", str(public)]) == 0
    assert capsys.readouterr().out.startswith("software verified: ")
    # the release as signed says another content for one library file: that file is named
    body = json.loads(manifest.read_bytes())
    victim = next(n for n in body["files"] if n.startswith("structlog-"))
    body["files"][victim] = hashlib.sha256(b"the approved content").hexdigest()
    manifest.write_bytes(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    (tmp_path / "manifest.json.sig").write_bytes(software.sign_manifest(manifest.read_bytes(), private.read_bytes()))
    assert main(["verify", "software", "--manifest", str(manifest), "--release-key", str(public)]) == 1
    out = capsys.readouterr().out
    assert "SOFTWARE NOT VERIFIED" in out and f"changed: {victim}" in out
    # signed by another key: exit 2, one line
    _, other = key_pair(tmp_path, "other")
    assert main(["verify", "software", "--manifest", str(manifest), "--release-key", str(other)]) == 2
    assert "not the release key's" in capsys.readouterr().err
