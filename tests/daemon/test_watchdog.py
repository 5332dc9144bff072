"""Continuous verification (tabled/daemon/watchdog.py): the installed files checked again against
the release manifest (or the files at start), unknown files named, each check's record; the whole
journal's chain and seals checked beside the table; a significant event checks again at once."""

from __future__ import annotations

import asyncio
import zlib
from pathlib import Path

from hypothesis import given, settings, strategies as st

from tabled.daemon.config import SoftwareConfig
from tabled.daemon import watchdog
from tabled.journal.store import Journal
from tabled.daemon.watchdog import InThread, Scope, Watchdog, check_journal, check_software, tree_files
from tabled.host import software
from tests.daemon.test_seals import new_key, play
from tests.daemon.tamper import rewrite
from tests.host.test_software import key_pair

DEVELOPMENT = SoftwareConfig(development=True)


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    for name, data in {"tabled/game/cards.py": b"ACE = 12\n", "tabled/profiles/nsw.toml": b"name = 'nsw'\n",
                       "structlog/_base.py": b"class BoundLogger: ...\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def flip(path: Path, at: int, bit: int = 1) -> None:
    data = bytearray(path.read_bytes())
    data[at % len(data)] ^= bit
    path.write_bytes(bytes(data))


def test_a_development_install_is_checked_against_its_files_at_start(tmp_path):
    root = tree(tmp_path)
    scope = Scope(DEVELOPMENT, root)
    first, found, _, _ = check_software(scope, None, None)
    assert first["result"] == "verified" and first["files"] == 3 and first["against"] == "the files at start"
    flip(root / "tabled/profiles/nsw.toml", 2)
    (root / "tabled/game/backdoor.py").write_text("import os\n")
    (root / "structlog/_base.py").unlink()
    later, _, _, _ = check_software(scope, found, None)
    assert later["result"] == "mismatch" and later["problem_count"] == 3
    assert later["problems"] == ["changed: tabled/profiles/nsw.toml", "missing: structlog/_base.py",
                                 "not in the release: tabled/game/backdoor.py"]
    assert later["digest"] != first["digest"] and isinstance(later["duration_ms"], int)


@settings(max_examples=30, deadline=None)
@given(which=st.integers(0, 2), at=st.integers(0, 10_000), bit=st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128]))
def test_any_single_byte_changed_is_named(tmp_path_factory, which, at, bit):
    root = tree(tmp_path_factory.mktemp("w"))
    scope = Scope(DEVELOPMENT, root)
    _, found, _, _ = check_software(scope, None, None)
    victim = tree_files(root)[which]
    flip(victim.path, at, bit)
    later, _, _, _ = check_software(scope, found, None)
    assert later["problems"] == [f"changed: {victim.name}"]


def test_a_file_changed_after_the_start_and_before_the_first_check_is_named_and_verifies_once_restored(tmp_path):
    # the worker's first check may come rounds after play began (a busy machine): what it reads then
    # is not the files at start; the table's own files were read before play, the others by stamp
    root = tree(tmp_path)
    scope = Scope(DEVELOPMENT, root)
    start = watchdog.at_start(scope)
    victim = root / "tabled/game/cards.py"
    original = victim.read_bytes()
    flip(victim, 3)
    (root / "tabled/game/backdoor.py").write_text("import os\n")
    first, baseline, _, _ = check_software(scope, None, None, start=start)
    assert first["result"] == "mismatch"
    assert first["problems"] == ["changed: tabled/game/cards.py", "not in the release: tabled/game/backdoor.py"]
    victim.write_bytes(original)
    (root / "tabled/game/backdoor.py").unlink()
    assert check_software(scope, baseline, None)[0]["result"] == "verified"


def test_a_file_not_read_at_start_and_written_after_it_is_named_changed_for_good(tmp_path):
    root = tree(tmp_path)
    scope = Scope(DEVELOPMENT, root)
    whole = watchdog.at_start(scope)  # the tree's files all read at start, but structlog's
    start = watchdog.AtStart(whole.since_ns, {n: d for n, d in whole.digests.items() if n.startswith("tabled/")},
                             "tabled/")
    victim = root / "structlog/_base.py"
    flip(victim, 0)
    first, baseline, _, _ = check_software(scope, None, None, start=start)
    assert first["problems"] == ["changed: structlog/_base.py"]  # what it held at start is not known
    flip(victim, 0)
    assert check_software(scope, baseline, None)[0]["problems"] == ["changed: structlog/_base.py"]


def test_a_file_written_before_the_start_is_the_files_at_start(tmp_path):
    root = tree(tmp_path)
    scope = Scope(DEVELOPMENT, root)
    start = watchdog.AtStart(watchdog.at_start(scope).since_ns + 10 ** 12, {}, "tabled/")  # a start after the writes
    assert check_software(scope, None, None, start=start)[0]["result"] == "verified"


def test_against_the_signed_manifest_and_an_untrusted_manifest(tmp_path):
    root = tree(tmp_path)
    private, public = key_pair(tmp_path, "release")
    manifest = tmp_path / "manifest.json"
    manifest.write_bytes(software.manifest_document("1.4.0", tree_files(root)))
    signature = tmp_path / "manifest.json.sig"
    signature.write_bytes(software.sign_manifest(manifest.read_bytes(), private.read_bytes()))
    scope = Scope(SoftwareConfig(manifest, signature, public), root)
    checked, _, _, _ = check_software(scope, None, None)
    assert checked["result"] == "verified" and checked["release"] == "1.4.0" and checked["against"] == "manifest"
    flip(root / "tabled/game/cards.py", 0)
    assert check_software(scope, None, None)[0]["problems"] == ["changed: tabled/game/cards.py"]
    flip(manifest, 10)
    untrusted = check_software(scope, None, None)[0]
    assert untrusted["result"] == "untrusted" and "not the release key's" in untrusted["detail"]


def test_a_changed_configuration_file_is_named_in_the_record(tmp_path):
    root = tree(tmp_path)
    config = tmp_path / "tabled.toml"
    config.write_text("[table]\n")
    scope = Scope(DEVELOPMENT, root, (config,))
    first, found, configs, _ = check_software(scope, None, None)
    assert "configs_changed" not in first
    config.write_text("[table]\nid = 'X'\n")
    assert check_software(scope, found, configs)[0]["configs_changed"] == [str(config)]


def test_the_whole_journal_and_its_seals_a_record_broken_before_the_last_checkpoint(tmp_path):
    key, _ = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path, seal_with=key) as journal:
        play(journal, 3)
        journal.checkpoint({"state": 1})
        play(journal, 2)
    raw = key.private.public_key().public_bytes_raw()
    intact = check_journal(path, raw)
    assert intact["result"] == "intact" and intact["seals"] > 0 and intact["problems"] == []
    rewrite(path, 2, lambda p: {**p, "cents": 1})  # before the checkpoint, every hash after it made again
    broken = check_journal(path, raw)
    # the chain's own check names the checkpoint that no longer seals the records before it
    assert broken["result"] == "broken"
    assert broken["detail"] == "record 25: checkpoint does not seal the chain before it"
    assert check_journal(path, None)["result"] == "broken"


async def next_check(seen: asyncio.Queue, kind: str) -> dict:
    async with asyncio.timeout(60):  # bounds a hang only
        while True:
            k, payload = await seen.get()
            if k == kind:
                return payload


async def test_the_watchdog_checks_at_start_and_again_on_a_significant_event(tmp_path):
    root = tree(tmp_path)
    key, _ = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path, seal_with=key) as journal:
        play(journal, 1)
    seen: asyncio.Queue = asyncio.Queue()
    dog = Watchdog(Scope(DEVELOPMENT, root), lambda k, p: seen.put_nowait((k, p)), every_s=3600,
                   journal=(path, key.private.public_key().public_bytes_raw()), runner=InThread())
    task = asyncio.create_task(dog.run())
    try:
        dog.wake("a configuration change")  # before the first check is due: it comes at once
        start = await next_check(seen, "software.checked")
        assert start["reason"] == "a configuration change" and start["result"] == "verified"
        assert (await next_check(seen, "journal.checked"))["result"] == "intact"
        flip(root / "structlog/_base.py", 5)
        dog.wake("door closed")
        after = await next_check(seen, "software.checked")
        assert after["reason"] == "door closed" and after["problems"] == ["changed: structlog/_base.py"]
    finally:
        task.cancel()


def test_a_file_whose_stamp_is_unchanged_is_not_read_again_unless_in_its_turn(tmp_path, monkeypatch):
    monkeypatch.setattr(watchdog, "RACY_NS", -(10 ** 18))  # every stamp old enough to vouch for its digest
    root = tree(tmp_path)
    scope = Scope(DEVELOPMENT, root)
    first, found, _, known = check_software(scope, None, None)
    assert first["read"] == 3 and set(known) == set(found)
    again, _, _, known = check_software(scope, found, None, known, turn=1)
    assert again["result"] == "verified" and again["read"] < 3
    # one changed the way a stamp does not show (what only a raw write to the disk does): its
    # contents are read again in its own turn of the SLICES, and named then
    victim = root / "tabled/game/cards.py"
    flip(victim, 0)
    forged = {**known, "tabled/game/cards.py": (watchdog.stamp_of(victim), found["tabled/game/cards.py"])}
    named = [turn for turn in range(watchdog.SLICES)
             if check_software(scope, found, None, forged, turn)[0]["problems"] == ["changed: tabled/game/cards.py"]]
    assert named == [zlib.crc32(b"tabled/game/cards.py") % watchdog.SLICES]


def test_a_changed_stamp_is_read_again_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(watchdog, "RACY_NS", -(10 ** 18))
    root = tree(tmp_path)
    scope = Scope(DEVELOPMENT, root)
    _, found, _, known = check_software(scope, None, None)
    for turn in range(watchdog.SLICES):
        victim = root / "structlog/_base.py"
        flip(victim, turn)
        checked, _, _, _ = check_software(scope, found, None, known, turn)
        assert checked["problems"] == ["changed: structlog/_base.py"]
        flip(victim, turn)


def test_the_workers_process_ignores_ctrl_c_the_table_ends_it_itself(capfd):
    """Ctrl-C at a terminal reaches the whole process group; the worker must not die of it mid-check
    (printing a traceback): the table stops, and closes its worker, on its own."""
    import os
    import signal

    async def interrupted() -> tuple[int, int]:
        worker = watchdog.Worker()
        try:
            pid = await asyncio.wait_for(worker.run(os.getpid), 60)
            await asyncio.wait_for(worker.run(os.kill, pid, signal.SIGINT), 60)  # delivered before it returns
            return pid, await asyncio.wait_for(worker.run(os.getpid), 60)
        finally:
            worker.close()
    before, after = asyncio.run(interrupted())
    assert after == before  # the same process answers: it ignored the interrupt
    assert "Traceback" not in capfd.readouterr().err
