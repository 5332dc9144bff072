"""In a terminal each thing is shown once: the console log leaves out the records that repeat a
line ``tabled run`` prints for the dealer; JSON (systemd, a pipe) keeps every record."""

from __future__ import annotations

import io
import json
import re

import pytest
import structlog

from tabled.table.effects import Say
from tabled.host.log import configure_logging, dealer_line, get_logger
from tabled.daemon.controller import log_dealer_line


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _restore_structlog():
    yield
    structlog.reset_defaults()


def say_as_the_table_logs_it(say: Say) -> None:
    """The record tabled/daemon/controller.py writes for each line told to the dealer."""
    log_dealer_line(say, "SIM01-000002")


PAST_POSTING = Say("spot 1: PAST POSTING: ante changed from $5.00 to $0.00 after no more bets", 1, "5.6", "flag")


def test_a_dealer_line_is_not_repeated_by_the_console_log(monkeypatch):
    monkeypatch.delenv("INVOCATION_ID", raising=False)
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    out = Terminal()
    assert configure_logging("auto", "warning", stream=out, shown_elsewhere=dealer_line) == "console"
    say_as_the_table_logs_it(PAST_POSTING)                                   # printed by tabled run: once
    say_as_the_table_logs_it(Say("round SIM01-000002: refused", None, None, "refused"))
    get_logger().warning("device.link_lost", device="meter", reason="silent", round_id="SIM01-000002")
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert "PAST POSTING" not in text and "refused" not in text
    assert text.count("device.link_lost") == 1 and "device=meter" in text  # no printed line for it: logged


def test_json_keeps_every_record_even_with_a_filter():
    out = io.StringIO()
    assert configure_logging("json", "info", stream=out, shown_elsewhere=dealer_line) == "json"
    say_as_the_table_logs_it(PAST_POSTING)
    get_logger().warning("device.link_lost", device="meter", round_id=None)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["event"] for r in records] == [PAST_POSTING.text, "device.link_lost"]
    assert {k: records[0][k] for k in ("spot", "rule", "kind", "level", "round_id")} == {
        "spot": 1, "rule": "5.6", "kind": "flag", "level": "warning", "round_id": "SIM01-000002"}


def test_without_a_filter_the_console_shows_dealer_lines(monkeypatch):
    """``tabled run --quiet`` prints one line per round: the log is then where a warning shows."""
    monkeypatch.delenv("INVOCATION_ID", raising=False)
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    out = Terminal()
    configure_logging("console", "warning", stream=out)
    say_as_the_table_logs_it(PAST_POSTING)
    assert re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()).count("PAST POSTING") == 1


@pytest.mark.parametrize("event, is_line", [
    ({"event": "spot 3 folds", "kind": "info", "spot": 3, "rule": "8.4"}, True),
    ({"event": "dealer: ...", "kind": "info", "spot": None, "rule": "9.1"}, True),
    ({"event": "device.link_lost", "device": "meter"}, False),
    ({"event": "pool unreachable", "kind": "contribute", "spot": 1, "rule": None}, False),  # not a Say level
    ({"event": "x", "kind": "flag", "spot": 1}, False),                                       # no rule key
])
def test_dealer_line(event, is_line):
    assert dealer_line(event) is is_line


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_trouble_is_one_line_as_it_starts_a_count_at_a_slowing_interval_and_one_line_as_it_ends():
    """An outage of ten minutes, a failure every 2.5 s (240): four lines, not 240."""
    from structlog.testing import capture_logs

    from tabled.host.log import Trouble

    clock = Clock()
    trouble = Trouble(get_logger(), "device.command_failed", clock)
    with capture_logs() as logs:
        for _ in range(240):
            trouble.failed(ConnectionError("meter is down\nsecond line of the driver"), device="meter")
            clock.now += 2.5
        trouble.ended(device="meter")
    assert [(r["event"], r.get("failures"), r.get("for_s")) for r in logs] == [
        ("device.command_failed", None, None),
        ("device.command_failed.continuing", 13, 30),    # after 30 s
        ("device.command_failed.continuing", 37, 90),    # then 60 s later
        ("device.command_failed.continuing", 85, 210),   # then 120 s later
        ("device.command_failed.continuing", 181, 450),  # then 240 s later
        ("device.command_failed.ended", 240, None),
    ]
    assert logs[0]["error"] == "meter is down | second line of the driver" and logs[0]["log_level"] == "warning"
    assert logs[-1]["lasted_s"] == 600 and logs[-1]["log_level"] == "info"
    with capture_logs() as logs:
        trouble.ended()  # nothing failed since: nothing to say
        trouble.failed(OSError())
    assert [(r["event"], r["error"]) for r in logs] == [("device.command_failed", "OSError")]


def test_every_record_is_one_line_whatever_text_it_carries():
    out = io.StringIO()
    configure_logging("json", "info", stream=out)
    get_logger().warning("pool.unreachable", error='connection failed: FATAL:  password authentication failed\n'
                                                   'DETAIL:  user "table"\n')
    structlog.reset_defaults()
    (line,) = out.getvalue().splitlines()
    assert json.loads(line)["error"] == ('connection failed: FATAL:  password authentication failed | '
                                         'DETAIL:  user "table"')


def test_a_settled_round_is_logged_in_brief_and_in_full_at_debug_level():
    from structlog.testing import capture_logs

    from tabled.daemon.report import RoundLogger
    from tabled.table.effects import Note

    wager = {"outcome": "collected", "placed_cents": 500, "net_cents": -500, "rule": "8.4"}
    spots = [{"spot": n, "status": "folded", "cards": ["2c", "3d", "4h", "5s", "7c"], "hand": "five odd cards",
              "ante": wager, "bet": wager, "progressive": wager, "net_cents": -500} for n in range(1, 8)]
    settled = Note("round.settled", {"profile": "nsw", "void": None, "spots": spots,
                                     "dealer": {"cards": ["As", "Kd", "Qh", "Jc", "9s"], "hand": "ace high",
                                                "value": 7, "qualifies": True},
                                     "progressive": {"awards": [], "pool_after_cents": 1_000_125},
                                     "house_collects_cents": 3500, "house_pays_cents": 0, "net_cents": -3500}, "R1")
    with capture_logs() as logs:
        RoundLogger()([settled])
    brief, detail = logs
    assert brief["event"] == "round.settled" and brief["log_level"] == "info"
    assert brief["spots"][0] == {"spot": 1, "status": "folded", "cards": "2c 3d 4h 5s 7c", "net_cents": -500}
    assert brief["dealer"] == {"cards": "As Kd Qh Jc 9s", "hand": "ace high", "qualifies": True}
    assert (brief["house_collects_cents"], brief["house_pays_cents"], brief["pool_after_cents"]) == (3500, 0, 1_000_125)
    assert (detail["event"], detail["log_level"], detail["spots"]) == ("round.settled.detail", "debug", spots)
    assert len(json.dumps(brief)) < len(json.dumps(settled.payload)) / 2
