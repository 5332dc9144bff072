"""``tabled run`` prints the addresses of the dealer's screen and the pit's view at start; a screen
it cannot serve (its port held by another program, or by another table's screen) stops the start
with exit 2, naming who holds the port: a table does not play without the screen its config gives
it."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from types import SimpleNamespace

import pytest

import tabled.daemon.web as web
from tabled.daemon.assemble import CannotStart
from tabled.daemon.config import ScreenConfig
from tabled.daemon.web import ScreenServer
from tests.daemon.configs import MINIMAL_TABLE
from tests.table.harness import Harness
from tests.web.daemon import play, screen_of


async def test_tabled_run_prints_the_screens_address(tmp_path):
    out = io.StringIO()
    urls = []

    async def scenario(run):
        urls.append(screen_of(run).url)
        await run.rounds(1)

    await play(tmp_path, scenario, out=out)
    banner = out.getvalue().splitlines()
    assert f"  screen  {urls[0]}" in banner and urls[0].startswith("http://127.0.0.1:")
    pool = next(i for i, ln in enumerate(banner) if ln.startswith("  pool "))
    assert banner[pool + 1] == f"  screen  {urls[0]}"  # on the banner, after the pool
    assert banner[pool + 2] == f"  pit     {urls[0]}pit"  # the pit's view beside it


async def test_an_address_another_program_holds_stops_the_start_naming_it(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        played = []

        async def scenario(run):
            played.append(run)

        with pytest.raises(CannotStart) as refused:
            await play(tmp_path, scenario, screen=ScreenConfig(port=port))
    assert not played
    said = str(refused.value)
    assert said.startswith(f"cannot serve the dealer's screen on 127.0.0.1:{port}: Address already in use (held by "
                           f"process {os.getpid()} (")
    assert said.endswith("; give this table another [screen] listen, or enabled = false for a table without a screen")


async def test_a_second_table_on_the_screens_port_is_refused_naming_the_first(tmp_path):
    first = ScreenServer(SimpleNamespace(core=Harness().core), ScreenConfig(port=0))
    await first.start()
    port = int(first.url.rsplit(":", 1)[1].strip("/"))
    try:
        with pytest.raises(CannotStart, match=rf"on 127.0.0.1:{port}: Address already in use \(held by the dealer's "
                                              r"screen of table 'T01' \(another tabled\)\)"):
            await play(tmp_path, lambda run: run.rounds(1), screen=ScreenConfig(port=port))
    finally:
        await first.stop()


@pytest.mark.slow
def test_tabled_run_exits_2_when_its_screen_cannot_be_served(tmp_path):
    config = tmp_path / "tabled.toml"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config.write_text(MINIMAL_TABLE + f'[journal]\npath = "journal.db"\n[simulation]\nenabled = true\n'
                          f'[software]\ndevelopment = true\n[screen]\nlisten = "127.0.0.1:{port}"\n')
        done = subprocess.run([sys.executable, "-m", "tabled", "run", "--config", str(config), "--rounds", "1"],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert f"cannot serve the dealer's screen on 127.0.0.1:{port}: Address already in use" in done.stderr
    assert "Traceback" not in done.stderr


async def test_a_screen_that_cannot_be_made_never_stops_the_table(tmp_path, monkeypatch):
    made = []

    def broken(core, effects=(), previous=None):
        if made:
            raise RuntimeError("a screen that cannot be made")
        made.append(1)
        return {"table": {"id": core.table_id}}

    monkeypatch.setattr(web, "screen_view", broken)

    async def scenario(run):
        first = screen_of(run).seq
        await run.rounds(1)
        assert screen_of(run).seq == first  # the pages keep the last screen made

    run = await play(tmp_path, scenario)
    assert run.core.rounds_finished >= 1


async def test_a_screen_turned_off_is_neither_served_nor_printed(tmp_path):
    out = io.StringIO()

    async def scenario(run):
        assert not any(isinstance(getattr(f, "__self__", None), web.ScreenServer) for f in run.table.listeners)
        await run.rounds(1)

    await play(tmp_path, scenario, screen=ScreenConfig(enabled=False), out=out)
    assert not [ln for ln in out.getvalue().splitlines() if ln.startswith("  screen")]
