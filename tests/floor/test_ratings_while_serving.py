"""The serving floor rates the ratings shipped a pass at a time, off its loop: a central copy that
cannot be reached is said and tried again; without the math extra it says so once and stops."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from structlog.testing import capture_logs

from tabled.commands import floor


async def passes(monkeypatch, outcomes: list) -> list[dict]:
    """Run the floor's ratings loop over ``outcomes`` (a count, or an exception raised), then stop it."""
    left = list(outcomes)
    done = asyncio.Event()

    def rate_all(cfg):
        if len(left) == 1:
            done.set()
        outcome = left.pop(0) if left else 0
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    monkeypatch.setattr(floor, "rate_all", rate_all)
    monkeypatch.setattr(floor, "RATE_EVERY_S", 0.0)
    with capture_logs() as logs:
        task = asyncio.get_running_loop().create_task(floor.rate_while_serving(object()))
        async with asyncio.timeout(10):   # bounds a hang only
            await done.wait()
            while not task.done() and left:
                await asyncio.sleep(0)
            await asyncio.sleep(0.01)
        stopped = task.done()
        task.cancel()
    return [*logs, {"stopped": stopped}]


async def test_a_pass_that_cannot_reach_the_central_copy_is_said_and_the_next_one_rates(monkeypatch):
    logs = await passes(monkeypatch, [psycopg.OperationalError("connection refused\nmore"), 3])
    events = [(e.get("event"), e.get("error"), e.get("ratings")) for e in logs if "event" in e]
    assert ("floor.ratings_not_rated", "connection refused", None) in events
    assert ("floor.ratings_rated", None, 3) in events and logs[-1]["stopped"] is False


async def test_without_the_math_extra_the_floor_says_so_once_and_stops_rating(monkeypatch):
    logs = await passes(monkeypatch, [ImportError("No module named 'numpy'")])
    [said] = [e for e in logs if e.get("event") == "floor.ratings_not_rated"]
    assert "install tabled[math]" in said["error"] and said["log_level"] == "error"
    assert logs[-1]["stopped"] is True


@pytest.mark.parametrize("args", [["--rate", "--card", "1234"], ["--rate", "--json"]])
def test_rate_goes_alone(args, tmp_path, capsys):
    from tabled.cli import EX_USER, main
    assert main(["floor", "--config", str(tmp_path / "floor.toml"), *args]) == EX_USER
    assert "--rate goes alone" in capsys.readouterr().err
