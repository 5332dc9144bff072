"""Helpers shared by the daemon tests."""

from __future__ import annotations

import sqlite3

import pytest


class FakeClock:
    """An injectable clock: POSIX seconds that move only when the test says so."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def connections(monkeypatch) -> list[sqlite3.Connection]:
    """Every SQLite connection opened while the test runs, as the journal uses it."""
    opened: list[sqlite3.Connection] = []
    connect = sqlite3.connect

    def recording(*args, **kwargs) -> sqlite3.Connection:
        opened.append(connect(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(sqlite3, "connect", recording)
    return opened
