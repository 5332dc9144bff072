"""One controller per table: a second ``tabled run`` on the same journal is refused with one line
naming the first's process; the lock is the kernel's, so it goes with its process (also kill -9)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tabled.journal.store import Journal, JournalInUse, lock_path
from tests.integration.test_restart_sim import ROOT, child_env, sim_config, tabled_argv

START_TIMEOUT = 30.0


def test_a_second_controller_is_refused_naming_the_first(tmp_path):
    path = tmp_path / "journal.db"
    first = Journal.open(path, exclusive=True)
    try:
        with pytest.raises(JournalInUse, match=rf"in use by another tabled \(pid {os.getpid()}\)"):
            Journal.open(path, exclusive=True)
        with pytest.raises(JournalInUse):  # the same journal by another name
            Journal.open(tmp_path / "." / "journal.db", exclusive=True)
        with Journal.open(path, readonly=True) as reader:  # audit and recall read beside it
            assert reader.count() == 0
    finally:
        first.close()
    Journal.open(path, exclusive=True).close()  # closed: the lock is free


def wait_for_holder(path: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the first daemon ended ({proc.returncode})"
        try:
            if lock_path(path).read_text().strip() == str(proc.pid):
                return
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    raise AssertionError("the first daemon did not take the journal")


@pytest.mark.slow
def test_a_second_tabled_run_on_the_same_config_exits_naming_the_first(tmp_path):
    config = sim_config(tmp_path)
    out = (tmp_path / "first.log").open("w")
    first = subprocess.Popen(tabled_argv("run", "--config", str(config), "--rounds", "0"), stdout=out,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT, env=child_env())
    try:
        wait_for_holder(tmp_path / "journal.db", first)
        second = subprocess.run(tabled_argv("run", "--config", str(config), "--rounds", "1"), capture_output=True,
                                text=True, cwd=ROOT, env=child_env(), timeout=60)
        assert second.returncode != 0
        lines = (second.stdout + second.stderr).strip().splitlines()
        assert len(lines) == 1 and f"pid {first.pid}" in lines[0] and "journal.db" in lines[0], lines
        assert first.poll() is None  # the first plays on
    finally:
        first.send_signal(signal.SIGKILL)  # kill -9: no chance to unlock anything itself
        first.wait(10)
        out.close()
    third = subprocess.run(tabled_argv("run", "--config", str(config), "--rounds", "1"), capture_output=True,
                           text=True, cwd=ROOT, env=child_env(), timeout=120)
    assert third.returncode == 0, third.stdout + third.stderr
    assert subprocess.run(tabled_argv("audit", "verify", "--journal", str(tmp_path / "journal.db")),
                          capture_output=True, cwd=ROOT, env=child_env(), timeout=60).returncode == 0
