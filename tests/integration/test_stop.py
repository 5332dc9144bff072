"""``tabled run`` plays whatever happens to its output, and SIGTERM stops it within 5 s with the round
in play journaled. Real processes: the daemon with the simulated table's config in a tmp folder.

* a closed pipe (``tabled run | head -1``): the table plays on, and stops on SIGTERM;
* a pipe nobody reads: the pipe fills, the table plays on, and stops on SIGTERM;
* a stalled terminal (a pty nobody reads) and a full disk under the log (stdout and stderr on
  /dev/full): the same;
* SIGTERM at 50 random moments (from the start of the devices to any step of a round), on
  daemons that each start where the last one stopped: every one stops within 5 s, its last
  record names the round in play and its phase, the journal then checks out and replays to
  exactly that round and phase (the next start resumes it).
"""

from __future__ import annotations

import pytest

import contextlib
import fcntl
import json
import os
import random
import signal
import sqlite3
import subprocess
import termios
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.journal.store import Journal
from tabled.daemon.controller import Table
from tests.integration.test_restart_sim import ROOT, child_env, sim_config, tabled_argv

STOP_LIMIT_S = 5.0
F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032


def start(config: Path, stdout, stderr=subprocess.DEVNULL) -> subprocess.Popen:
    return subprocess.Popen(tabled_argv("run", "--config", str(config), "--pace-ms", "0"), stdin=subprocess.DEVNULL,
                            stdout=stdout, stderr=stderr, cwd=ROOT, env=child_env())


def rounds_finished(journal: Path) -> int:
    """Read straight from SQLite, read-only, while the daemon runs."""
    if not journal.exists():
        return 0
    conn = sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute("SELECT count(*) FROM records WHERE kind = 'round.finished'").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0
    finally:
        conn.close()


def wait_for(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> float:
    """Send ``sig``; returns the seconds the daemon took to exit (it is killed past the limit)."""
    t0 = time.monotonic()
    proc.send_signal(sig)
    try:
        proc.wait(STOP_LIMIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return float("inf")
    return time.monotonic() - t0


def audit_ok(journal: Path) -> None:
    with Journal.open(journal, readonly=True) as j:
        result = j.verify()
        assert result.ok, result


@contextlib.contextmanager
def running(proc: subprocess.Popen):
    """The daemon, killed if a test leaves it running (a failed wait, say)."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def stopped_cleanly(proc: subprocess.Popen, took: float, journal: Path) -> None:
    """SIGTERM stopped the daemon in time, with exit status 0, and its journal verifies."""
    assert took < STOP_LIMIT_S, "SIGTERM did not stop the daemon"
    assert proc.returncode == 0
    audit_ok(journal)


@pytest.mark.slow
def test_a_closed_pipe_does_not_stop_play_and_sigterm_still_does(tmp_path):
    """`tabled run | head -1`: the reader leaves after one line."""
    config = sim_config(tmp_path)
    with running(start(config, subprocess.PIPE)) as proc:
        assert json.loads(proc.stdout.readline())["event"] == "table.started"
        proc.stdout.close()  # head -1 exits: every later write meets a closed pipe
        played = rounds_finished(tmp_path / "journal.db")
        wait_for(lambda: rounds_finished(tmp_path / "journal.db") >= played + 3, 60, "rounds after the pipe closed")
        took = stop(proc)
    stopped_cleanly(proc, took, tmp_path / "journal.db")


@pytest.mark.slow
def test_a_pipe_nobody_reads_does_not_stop_play_and_sigterm_still_does(tmp_path):
    config = sim_config(tmp_path)
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    capacity = fcntl.fcntl(w, F_GETPIPE_SZ)
    proc = start(config, w, subprocess.STDOUT)
    os.close(w)

    def pipe_full() -> bool:
        buf = bytearray(4)
        fcntl.ioctl(r, termios.FIONREAD, buf)
        return int.from_bytes(buf, "little") >= capacity - 512  # no room for another record
    try:
        with running(proc):
            wait_for(pipe_full, 60, "the pipe to fill")
            full_at = rounds_finished(tmp_path / "journal.db")
            wait_for(lambda: rounds_finished(tmp_path / "journal.db") >= full_at + 3, 60, "rounds with the pipe full")
            took = stop(proc)
    finally:
        os.close(r)
    stopped_cleanly(proc, took, tmp_path / "journal.db")


@pytest.mark.slow
def test_a_stalled_terminal_does_not_stop_play_and_sigterm_still_does(tmp_path):
    """A terminal stopped with Ctrl-S: every write to it waits until output resumes."""
    config = sim_config(tmp_path)
    master, slave = os.openpty()
    termios.tcflow(slave, termios.TCOOFF)  # what Ctrl-S (XOFF) does to the terminal's output
    proc = start(config, slave, slave)
    os.close(slave)
    try:
        with running(proc):
            wait_for(lambda: rounds_finished(tmp_path / "journal.db") >= 4, 90, "rounds with the terminal stalled")
            took = stop(proc)
    finally:
        os.close(master)
    stopped_cleanly(proc, took, tmp_path / "journal.db")


@pytest.mark.slow
def test_a_full_disk_under_the_log_does_not_stop_play_and_sigterm_still_does(tmp_path):
    """stdout and stderr redirected to a file on a full disk: every write fails with ENOSPC."""
    config = sim_config(tmp_path)
    with open("/dev/full", "w") as full:
        proc = start(config, full, subprocess.STDOUT)
    with running(proc):
        wait_for(lambda: rounds_finished(tmp_path / "journal.db") >= 3, 60, "rounds with the disk full")
        took = stop(proc)
    stopped_cleanly(proc, took, tmp_path / "journal.db")


def stop_at_random_moments(tmp: Path, times: int, seed: int, strategy: str) -> list[dict]:
    """Start, SIGTERM after a random time, check, start again on the same journal ... ``times`` times."""
    rng = random.Random(seed)
    config = sim_config(tmp)
    config.write_text(config.read_text().replace('strategy = "optimal"', f'strategy = "{strategy}"'))
    cfg = load_config(config)
    results = []
    for i in range(times):
        proc = start(config, subprocess.PIPE)
        try:
            first = json.loads(proc.stdout.readline())  # the table has replayed its journal
            assert first["event"] == "table.started", first
            # a random moment, however fast this machine plays: after the k-th record (the devices
            # starting, then any step of a round: a round logs about 60), and a little later still
            for _ in range(rng.randint(1, 60)):
                proc.stdout.readline()
            time.sleep(rng.uniform(0.0, 0.2))
            took = stop(proc)
            records = [first] + [json.loads(line) for line in proc.stdout]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        stopped = records[-1] if records else {}
        with Journal.open(tmp / "journal.db", readonly=True) as j:  # checks the chain from its checkpoint
            core, _, _ = Table.replay(j, lambda snap: make_core(cfg, snap))
            result = j.verify()
        results.append({"run": i, "took": took, "returncode": proc.returncode, "stopped": stopped,
                        "chain_ok": result.ok,
                        "journal": (core.round_id if core.round else None, core.round.phase if core.round else None)})
    return results


@pytest.mark.slow
def test_sigterm_at_fifty_random_moments_stops_within_5_s_with_the_round_in_play_journaled(tmp_path):
    chains, each = 10, 5  # ten tables at once: the 50 stops fit the time of 5 daemons' lives
    # two tables' players think by the exact count (seconds of CPU on a busy machine, in their own
    # thread: a stop must not wait for it); the others by the quick published rules, to keep the time
    strategies = ["optimal" if c % 5 == 0 else "rules" for c in range(chains)]
    with ThreadPoolExecutor(chains) as pool:
        runs = [r for rs in pool.map(lambda c: stop_at_random_moments(tmp_path / f"table{c}", each, c, strategies[c]),
                                     range(chains)) for r in rs]
    assert len(runs) == 50
    slow = [r for r in runs if r["took"] >= STOP_LIMIT_S]
    assert slow == [], f"{len(slow)} of 50 SIGTERMs did not stop the daemon within {STOP_LIMIT_S} s"
    assert [r for r in runs if r["returncode"] != 0] == []
    assert all(r["chain_ok"] for r in runs)
    for r in runs:
        s = r["stopped"]
        assert s.get("event") == "table.stopped", r
        # the round the daemon was in when it stopped is the round the journal resumes
        assert (s["round_id"], s["phase"]) == r["journal"], r
    in_play = [r for r in runs if r["journal"][1] not in (None, "preparing")]
    assert len(in_play) >= 10, f"only {len(in_play)} stops landed inside a round"
    assert sum(r["stopped"]["rounds"] for r in runs) > 0
