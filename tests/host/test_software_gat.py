"""The inspector's field-tool answers (GSA's GAT style): SHA-1 with no seed and HMAC-SHA1 with one,
over the same files and bytes as the HMAC-SHA256 challenge, each computed again with the standard
library alone."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.cli import main
from tabled.host import software
from tabled.host.software import InstalledFile, SoftwareError


def stream(files: list[tuple[str, bytes]]) -> bytes:
    """docs/verification.md's bytes: name, a zero byte, the length as 8 bytes big-endian, contents."""
    return b"".join(name.encode() + b"\x00" + len(data).to_bytes(8, "big") + data for name, data in files)


@pytest.fixture
def installed(tmp_path):
    contents = {"tabled/tabled/game/cards.py": b"ACE = 12\n", "tabled/tabled/profiles/nsw.toml": b"name = 'nsw'\n"}
    files = []
    for name, data in contents.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        files.append(InstalledFile(name, path))
    return files, list(contents.items())


def test_sha1_without_a_seed_is_the_sha1_of_the_documented_bytes(installed):
    files, raw = installed
    assert software.answer("sha1", files) == hashlib.sha1(stream(raw)).hexdigest()


def test_hmac_sha1_with_a_seed_is_the_hmac_of_the_documented_bytes(installed):
    files, raw = installed
    assert software.answer("hmac-sha1", files, "A5F3") == hmac.new(b"A5F3", stream(raw), hashlib.sha1).hexdigest()


def test_one_byte_changed_changes_every_answer(installed):
    files, _ = installed
    before = {m: software.answer(m, files, None if m == "sha1" else "seed") for m in software.METHODS}
    data = bytearray(files[1].path.read_bytes())
    data[3] ^= 0x20
    files[1].path.write_bytes(bytes(data))
    after = {m: software.answer(m, files, None if m == "sha1" else "seed") for m in software.METHODS}
    assert all(before[m] != after[m] for m in software.METHODS)


@settings(max_examples=25, deadline=None)
@given(seed=st.text(min_size=1).filter(str.strip), data=st.binary(max_size=200))
def test_every_seed_and_content_answers_as_the_standard_library(tmp_path_factory, seed, data):
    path = tmp_path_factory.mktemp("g") / "f.py"
    path.write_bytes(data)
    files = [InstalledFile("tabled/tabled/f.py", path)]
    expected = stream([("tabled/tabled/f.py", data)])
    assert software.answer("hmac-sha1", files, seed) == hmac.new(seed.encode(), expected, hashlib.sha1).hexdigest()
    assert software.answer("sha1", files) == hashlib.sha1(expected).hexdigest()


def test_a_seed_for_sha1_an_empty_seed_and_an_unknown_method_are_clear_errors(installed):
    files, _ = installed
    with pytest.raises(SoftwareError, match="takes no seed"):
        software.answer("sha1", files, "x")
    with pytest.raises(SoftwareError, match="empty"):
        software.answer("hmac-sha1", files, " ")
    with pytest.raises(SoftwareError, match="unknown method 'md5'"):
        software.answer("md5", files)


@pytest.mark.slow
def test_the_command_answers_gat_over_the_installed_files(capsys):
    raw = [(f.name, f.path.read_bytes()) for f in software.installed_files()]
    assert main(["verify", "software", "--method", "sha1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["files"] == len(raw) and out["sha1"] == hashlib.sha1(stream(raw)).hexdigest()
    assert main(["verify", "software", "--method", "hmac-sha1", "--challenge", "NSW-7"]) == 0
    expected = hmac.new(b"NSW-7", stream(raw), hashlib.sha1).hexdigest()
    assert capsys.readouterr().out == f"{len(raw)} files, HMAC-SHA1 keyed with the seed: {expected}\n"
    assert main(["verify", "software", "--method", "sha1", "--challenge", "x"]) == 2
    assert "takes no seed" in capsys.readouterr().err
