"""``tabled run`` prints the addresses of the dealer's screen and the pit's view at start; an
address it cannot listen on is told, and the table runs without its screen (the journal and the
devices do not depend on it)."""

from __future__ import annotations

import io
import socket

import tabled.daemon.web as web
from tabled.daemon.config import ScreenConfig
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


async def test_an_address_in_use_is_told_and_the_table_plays_on(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = io.StringIO()

        async def scenario(run):
            await run.rounds(1)

        run = await play(tmp_path, scenario, screen=ScreenConfig(port=port), out=out)
    assert run.core.rounds_finished >= 1
    (line,) = [ln for ln in out.getvalue().splitlines() if ln.startswith("  screen")]
    assert line.startswith(f"  screen  not served: cannot serve the dealer's screen on 127.0.0.1:{port}: ")
    assert "in use" in line


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
