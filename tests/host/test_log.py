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
