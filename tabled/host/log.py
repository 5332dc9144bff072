"""Logging with structlog: JSON lines under systemd, readable lines in a terminal.

``configure_logging(format, level)`` once at start (``format``: ``auto`` | ``json`` | ``console``;
auto = JSON when stdout is not a terminal or the process runs under systemd, where journald keeps
each line). Every record carries ``round_id`` (None between rounds) and, where it applies, ``spot``
and ``rule``: bind them with structlog's contextvars so every line logged inside carries them::

    log = get_logger()
    with log_context(round_id="SIM01-000042"):
        with log_context(spot=3, rule="14.9"):
            log.warning("bet.not_twice_ante", bet_cents=900, ante_cents=500)

Each event is named in the domain's words (``bet.not_twice_ante``); values are integer cents.

No secret is ever logged: every text a record carries passes :func:`scrub_secrets`, which hides a
connection string's password (``postgresql://user:***@host``, ``password=***``). Code that writes
such text anywhere else (the journal, an error line) calls it too.

In a terminal ``tabled run`` prints the dealer's lines itself (tabled/daemon/report.py); it passes
``shown_elsewhere=dealer_line`` so the console log does not show the same line a second time.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TextIO

import structlog
from structlog.contextvars import bound_contextvars, merge_contextvars
from structlog.typing import EventDict, Processor, WrappedLogger

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
          "error": logging.ERROR, "critical": logging.CRITICAL}
FORMATS = ("auto", "json", "console")
#: the ``kind`` of a record that is a line told to the dealer (tabled/daemon/controller.py logs each Say so)
DEALER_LINE_KINDS = ("info", "flag", "refused")


#: the password of a URL's userinfo: ``scheme://user:PASSWORD@``
_URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*):[^@\n]*@")
#: ``password=...`` in a URL's query (percent-encoded: ``&`` ends it)
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&#\s]*", re.IGNORECASE)
#: ``password=...`` in a key=value connection string: quoted, or up to a space (``\`` escapes)
_KEY_PASSWORD = re.compile(r"(?<![?&])(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|(?:\\.|[^\s\\])+)",
                           re.IGNORECASE)
#: what every password above starts with: most text has none of it and is left at once
_MAY_HOLD_ONE = re.compile(r"://|password", re.IGNORECASE)
HIDDEN = "***"


def scrub_secrets(text: str, *secrets: str) -> str:
    """``text`` with every password it may hold replaced by ``***``: a URL's userinfo password,
    ``password=...``, and each of ``secrets`` (passwords the caller knows) wherever it appears."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, HIDDEN)
    if not _MAY_HOLD_ONE.search(text):
        return text
    text = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}:{HIDDEN}@", text)
    text = _QUERY_PASSWORD.sub(lambda m: f"{m.group(1)}{HIDDEN}", text)
    return _KEY_PASSWORD.sub(lambda m: f"{m.group(1)}{HIDDEN}", text)


def one_line(text: object, limit: int | None = 300) -> str:
    """``text`` (an error, say libpq's several lines) as one line: its lines joined with `` | ``,
    cut at ``limit`` characters (None: whole); an error with no text is named by its type."""
    if isinstance(text, BaseException) and not str(text).strip():
        return type(text).__name__
    joined = " | ".join(line.strip() for line in str(text).splitlines() if line.strip())
    return joined if limit is None or len(joined) <= limit else joined[:limit - 3] + "..."


def _scrub_record(_logger: WrappedLogger, _name: str, event: EventDict) -> EventDict:
    for key, value in event.items():
        if key == "exception":  # a bug's traceback, kept whole (a JSON line escapes its newlines)
            continue
        if isinstance(value, str):
            event[key] = scrub_secrets(value if "\n" not in value else one_line(value, None))
        elif isinstance(value, BaseException):
            event[key] = scrub_secrets(one_line(value, None))
    return event


class Trouble:
    """A failure that repeats while it lasts (a device down, a server out of reach), logged without
    flooding the log: one warning when it starts (``event``), while it lasts a summary with the
    count (``event.continuing``) after :data:`SUMMARY_FIRST_S`, then at twice the interval each
    time up to :data:`SUMMARY_MOST_S`, and one line when it ends (``event.ended``). Every error
    is one line (:func:`one_line`). ``clock``: monotonic seconds (a test's own)."""

    SUMMARY_FIRST_S = 30.0
    SUMMARY_MOST_S = 600.0

    def __init__(self, logger: Any, event: str, clock: Callable[[], float] = time.monotonic):
        self.logger, self.event, self.clock = logger, event, clock
        self.failures = 0
        self.since = self.next_summary = 0.0
        self.interval = self.SUMMARY_FIRST_S

    def failed(self, error: object, **fields: Any) -> None:
        now = self.clock()
        text = one_line(error)
        self.failures += 1
        if self.failures == 1:
            self.since, self.interval = now, self.SUMMARY_FIRST_S
            self.next_summary = now + self.interval
            self.logger.warning(self.event, error=text, **fields)
        elif now >= self.next_summary:
            self.logger.warning(f"{self.event}.continuing", failures=self.failures, for_s=round(now - self.since),
                                error=text, **fields)
            self.interval = min(self.interval * 2, self.SUMMARY_MOST_S)
            self.next_summary = now + self.interval

    def ended(self, **fields: Any) -> None:
        if self.failures:
            self.logger.info(f"{self.event}.ended", failures=self.failures,
                             lasted_s=round(self.clock() - self.since), **fields)
            self.failures = 0


def under_systemd() -> bool:
    """True when systemd started us (journald reads stdout)."""
    return bool(os.environ.get("INVOCATION_ID") or os.environ.get("JOURNAL_STREAM"))


def choose_format(fmt: str, stream: TextIO) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt != "auto":
        return fmt
    tty = getattr(stream, "isatty", lambda: False)()
    return "console" if tty and not under_systemd() else "json"


def _always_round_id(_logger: WrappedLogger, _name: str, event: EventDict) -> EventDict:
    event.setdefault("round_id", None)  # every record says which round it belongs to
    return event


def dealer_line(event: Mapping[str, Any]) -> bool:
    """A record that repeats a line told to the dealer (a Say: its ``kind``, ``rule`` and ``spot``)."""
    return event.get("kind") in DEALER_LINE_KINDS and "rule" in event and "spot" in event


def _drop(shown_elsewhere: Callable[[EventDict], bool]) -> Processor:
    def drop(_logger: WrappedLogger, _name: str, event: EventDict) -> EventDict:
        if shown_elsewhere(event):
            raise structlog.DropEvent  # the reader has already seen it once
        return event
    return drop


def _keep_only(events: frozenset[str] | set[str]) -> Processor:
    """``--quiet``: below warning level, only the records named in ``events``."""
    def keep(_logger: WrappedLogger, name: str, event: EventDict) -> EventDict:
        if name in ("debug", "info", "msg") and event.get("event") not in events:
            raise structlog.DropEvent
        return event
    return keep


def _timestamper(clock: Callable[[], float] | None) -> Processor:
    if clock is None:
        return structlog.processors.TimeStamper(fmt="iso", utc=True)

    def stamp(_logger: WrappedLogger, _name: str, event: EventDict) -> EventDict:
        event["timestamp"] = datetime.fromtimestamp(clock(), tz=UTC).isoformat()
        return event
    return stamp


def configure_logging(format: str = "auto", level: str = "info", *, stream: TextIO | None = None,
                      clock: Callable[[], float] | None = None,
                      shown_elsewhere: Callable[[EventDict], bool] | None = None,
                      keep_only: frozenset[str] | set[str] | None = None) -> str:
    """Set up structlog for the process; returns the format chosen ("json" or "console").
    ``shown_elsewhere``: records the reader already sees in another form (in a terminal, the lines
    ``tabled run`` prints for the dealer) are left out of the console; JSON keeps every record.
    ``keep_only``: below warning level, only the records with these event names (``--quiet``).
    Write to a stream that never blocks (tabled/host/output.py): a log line must not hold up the table."""
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, got {level!r}")
    stream = stream if stream is not None else sys.stdout
    chosen = choose_format(format, stream)
    renderer: Any
    if chosen == "json":
        renderer = structlog.processors.JSONRenderer(sort_keys=False)
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=getattr(stream, "isatty", lambda: False)())
    drop = [_drop(shown_elsewhere)] if shown_elsewhere is not None and chosen == "console" else []
    if keep_only is not None:
        drop.append(_keep_only(keep_only))
    structlog.configure(
        processors=[
            *drop,
            merge_contextvars,
            _always_round_id,
            structlog.processors.add_log_level,
            _timestamper(clock),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info if chosen == "json" else (lambda _l, _n, e: e),
            _scrub_record,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(LEVELS[level]),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )
    return chosen


def get_logger(**initial: Any) -> Any:
    return structlog.get_logger(**initial)


@contextmanager
def log_context(**values: Any) -> Iterator[None]:
    """Bind round_id / spot / rule (or anything) for every record logged inside."""
    with bound_contextvars(**values):
        yield


__all__ = ["configure_logging", "get_logger", "log_context", "choose_format", "under_systemd", "dealer_line",
           "scrub_secrets", "one_line", "Trouble"]
