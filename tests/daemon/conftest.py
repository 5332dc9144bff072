"""Helpers shared by the daemon tests."""

from __future__ import annotations

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
