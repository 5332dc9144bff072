"""Stored pool settings are read back with a clear error, never a crash."""

import pytest

from tabled.pool.base import PoolError
from tabled.pool.settings import PoolSettings, schedule_from_json


@pytest.mark.parametrize("text", [
    "not json",
    '{"fixed_awards_cents": [1, 2]}',
    '{"fixed_awards_cents": {"NO_SUCH_HAND": 100}}',
    '{"royal_minimum_cents": -1}',
])
def test_an_unreadable_stored_schedule_is_a_pool_error(text):
    with pytest.raises(PoolError, match="stored award schedule cannot be read"):
        schedule_from_json(text)


@pytest.mark.parametrize("reset", [-1, 1.5, True, "100"])
def test_reset_value_is_whole_cents(reset):
    with pytest.raises(PoolError, match="reset_cents must be a whole number of cents"):
        PoolSettings(contribution_bp=2500, reset_cents=reset)
