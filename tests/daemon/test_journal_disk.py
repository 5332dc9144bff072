"""The journal's disk: full during play and at a start, read-only under an inspector's copy.

A full disk or a refused write is told as what it is (exit 2, the bytes to free), never as a bug
or a damaged file; a journal on media that cannot be written is read and verified all the same.
The disks are real: a small tmpfs, or a read-only bind mount, in a user and mount namespace of
their own (``unshare``, no privilege needed), where ``tabled`` runs as a command.
"""

from __future__ import annotations

import os
import random
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tabled.journal.store import Journal, JournalDiskFull
from tests.daemon.tamper import change_only

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "config"


def in_namespace(script: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    """``script`` (sh) run in a user and mount namespace of its own, where it may mount."""
    return subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-ec", script], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def tabled(*argv: str | Path) -> str:
    return shlex.join([sys.executable, "-m", "tabled", *map(str, argv)])


def sim_config(tmp_path: Path, journal: Path) -> Path:
    """The simulated table of config/sim.toml with its journal at ``journal`` and the rest in tmp_path."""
    shutil.copy(CONFIG / "sim-staff.toml", tmp_path / "sim-staff.toml")
    text = (CONFIG / "sim.toml").read_text().replace('listen = "127.0.0.1:8750"', 'listen = "127.0.0.1:0"')
    text = text.replace('"../var/journal.db"', f'"{journal}"').replace('"../var/pool-main.db"',
                                                                       f'"{tmp_path / "pool.db"}"')
    path = tmp_path / "sim.toml"
    path.write_text(text)
    return path


def test_a_write_the_disk_has_no_room_for_is_named_and_the_journal_stays_intact(tmp_path, clock, connections):
    """SQLite rolls back a transaction that found no room itself; the journal says the disk is
    full (no "cannot rollback") and goes on once there is room. The room is cut with SQLite's own
    page limit on the journal's connection."""
    path = tmp_path / "journal.db"
    with Journal.open(path, clock=clock) as j:
        [conn] = connections
        written = [j.append("bet.placed", {"spot": spot, "ante_cents": 500}, round_id="R1") for spot in (1, 2)]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(JournalDiskFull, match=r"the journal's disk is full .*nothing was written"):
            j.append("bet.placed", {"spot": 3, "note": random.Random(1).randbytes(20_000).hex()}, round_id="R1")
        with pytest.raises(JournalDiskFull, match="the journal's disk is full"):
            j.checkpoint({"table": "T01", "note": random.Random(2).randbytes(20_000).hex()})
        assert j.head == (2, written[-1].hash)
        conn.execute("PRAGMA max_page_count = 1000000")
        after = j.append("bet.placed", {"spot": 3, "ante_cents": 500}, round_id="R1")
    assert after.seq == 3 and after.prev_hash == written[-1].hash
    with Journal.open(path, clock=clock) as j:
        assert j.verify().ok and j.verify().count == 3


@pytest.mark.slow
def test_a_disk_filled_during_play_stops_the_table_with_exit_2_and_a_start_on_it_says_so(tmp_path):
    """The table plays until its journal's disk (a 256 KiB tmpfs) is full: exit 2 and one line naming
    the full disk and the bytes to free; a start on the full disk says the same (not "damaged",
    whose advice would replace a good journal with an older copy); the journal verifies."""
    disk = tmp_path / "disk"
    disk.mkdir()
    journal = disk / "journal.db"
    config = sim_config(tmp_path, journal)
    script = f"""
mount -t tmpfs -o size=256k tmpfs {disk}
set +e
{tabled("run", "--config", config, "--rounds", "0", "--pace-ms", "0", "--quiet")} >/dev/null 2>play.err
echo "play $?"
{tabled("run", "--config", config, "--rounds", "1", "--pace-ms", "0", "--quiet")} >/dev/null 2>start.err
echo "start $?"
{tabled("audit", "verify", "--journal", journal)} >verify.out 2>&1
echo "verify $?"
"""
    done = in_namespace(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["play 2", "start 2", "verify 0"], (done.stdout, done.stderr)
    for name in ("play.err", "start.err"):
        said = (tmp_path / name).read_text().strip().splitlines()[-1]
        assert said.startswith(f"tabled run: error: {journal}: the journal's disk is full (free "), said
        assert " bytes needed; " in said and "internal error" not in said and "damaged" not in said, said
    assert "chain intact from record 1 to" in (tmp_path / "verify.out").read_text()


@pytest.fixture
def evidence(tmp_path, clock) -> tuple[Path, Path]:
    """Two copies of one journal in a folder ``media``: ``closed.db`` copied after the daemon
    closed it (everything in the file), ``running.db`` copied with its write-ahead log while the
    journal was open (its records in the log only)."""
    media = tmp_path / "media"
    media.mkdir()
    source = tmp_path / "journal.db"
    with Journal.open(source, clock=clock) as j:
        for n in range(1, 6):
            j.append("bet.placed", {"spot": n, "ante_cents": 500}, round_id=f"T01-{n:06d}")
        assert Path(f"{source}-wal").stat().st_size > 0
        shutil.copyfile(source, media / "running.db")
        shutil.copyfile(f"{source}-wal", media / "running.db-wal")
    shutil.copyfile(source, media / "closed.db")
    return media / "closed.db", media / "running.db"


def test_an_intact_journal_on_read_only_media_verifies_and_is_recalled(tmp_path, evidence):
    """`audit verify` and `recall` read an inspector's copy on a read-only mount (no -shm can be made
    there), both a copy of a closed journal and one taken with its write-ahead log."""
    media = evidence[0].parent
    checks = "\n".join(f"""
{tabled("audit", "verify", "--journal", copy)} >{copy.stem}.verify 2>&1 || echo "verify {copy.stem} $?"
{tabled("recall", "--journal", copy, "--last", "5", "--json")} >{copy.stem}.recall 2>&1 || echo "recall {copy.stem} $?"
""" for copy in evidence)
    script = f"""
mount --bind {media} {media}
mount -o remount,ro,bind {media}
touch {media}/probe 2>/dev/null && echo "media writable"
{checks}
"""
    done = in_namespace(script, tmp_path, timeout=120)
    assert done.returncode == 0 and done.stdout == "", (done.stdout, done.stderr)
    for copy in evidence:
        verified = (tmp_path / f"{copy.stem}.verify").read_text()
        assert f"journal {copy}: 5 records, chain intact from record 1 to 5" in verified, verified
        recalled = (tmp_path / f"{copy.stem}.recall").read_text().splitlines()
        assert len(recalled) == 5 and all("T01-00000" in line for line in recalled), recalled
    assert sorted(os.listdir(media)) == ["closed.db", "running.db", "running.db-wal"]


def test_altered_contents_on_read_only_media_are_still_named(tmp_path, evidence):
    """Read-only media change nothing in the check: a record altered in the copy is BROKEN."""
    closed = evidence[0]
    change_only(closed, 3, lambda payload: {**payload, "ante_cents": 50_000})
    media = closed.parent
    script = f"""
mount --bind {media} {media}
mount -o remount,ro,bind {media}
set +e
{tabled("audit", "verify", "--journal", closed)}
echo "verify $?"
"""
    done = in_namespace(script, tmp_path, timeout=120)
    assert f"journal {closed}: BROKEN at record 3" in done.stdout and done.stdout.endswith("verify 1\n"), done


def test_a_journal_on_read_only_media_opened_to_write_is_not_called_damaged(tmp_path, evidence):
    """A write the media refuse names the disk or folder, without the advice to restore the file
    from its copy (which would replace a good journal with an older one)."""
    closed = evidence[0]
    opener = f"from tabled.journal.store import Journal; Journal.open({str(closed)!r}).append('bet.placed', {{}})"
    script = f"""
mount --bind {closed.parent} {closed.parent}
mount -o remount,ro,bind {closed.parent}
set +e
{shlex.join([sys.executable, "-c", opener])} 2>&1 | tail -1
"""
    said = in_namespace(script, tmp_path, timeout=60).stdout.strip()
    assert said.startswith(f"tabled.journal.store.JournalError: {closed}: the journal cannot be read or written "
                           "here (SQLite: "), said
    assert "damaged" not in said and "restore" not in said, said
