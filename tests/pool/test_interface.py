"""Both pool backends give exactly what a table asks of a pool (tabled.pool.base.ProgressivePool, 11.5):
every member of the interface, with the same parameters, the same kind (coroutine or not, property),
so the daemon never needs to ask which backend it feeds."""

from __future__ import annotations

import inspect

import pytest

from tabled.pool.base import ProgressivePool
from tabled.pool.local import LocalPool
from tabled.pool.postgresql import PostgresPool
from tabled.pool.settings import PoolSettings

MEMBERS = sorted(name for name in vars(ProgressivePool) if not name.startswith("_"))
BACKENDS = [LocalPool, PostgresPool]


def parameters(fn) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


def test_the_interface_is_what_the_table_uses():
    assert MEMBERS == ["apply_awards", "balance", "close", "compare_answers", "contribute", "contribute_round",
                       "correct", "last_round", "ready", "register_table", "reverse", "subscribe_meter", "verify"]
    assert "name" in ProgressivePool.__annotations__


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("member", MEMBERS)
def test_each_backend_gives_each_member_as_the_interface_says(backend, member):
    wanted, given = getattr(ProgressivePool, member), getattr(backend, member)
    if isinstance(wanted, property):
        assert isinstance(given, property), f"{backend.__name__}.{member} is not a property"
        return
    assert parameters(given) == parameters(wanted), f"{backend.__name__}.{member}: parameters differ"
    if inspect.iscoroutinefunction(wanted):
        assert inspect.iscoroutinefunction(given), f"{backend.__name__}.{member} must be a coroutine function"
    else:  # subscribe_meter: an async iterator, not a coroutine
        assert not inspect.iscoroutinefunction(given)


async def test_an_open_local_pool_is_a_progressive_pool(tmp_path):
    pool = await LocalPool.open(tmp_path / "pool.db", "main", "T01", PoolSettings(2500, 1_000_000))
    try:
        assert isinstance(pool, ProgressivePool) and pool.ready and pool.name == "main"
    finally:
        await pool.close()


async def test_a_linked_pool_out_of_reach_is_a_progressive_pool_not_ready():
    pool = PostgresPool("postgresql://tabled@127.0.0.1:1/none", "main", "T01", PoolSettings(2500, 1_000_000))
    try:
        assert isinstance(pool, ProgressivePool) and not pool.ready
    finally:
        await pool.close()
