"""Run ``async def`` tests on a fresh asyncio loop each (no plugin needed), bounded in time, so a
hung link or table fails its test instead of hanging the suite."""

import asyncio
import inspect

import pytest

ASYNC_TEST_LIMIT = 60.0  # seconds


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}

        async def bounded():
            await asyncio.wait_for(pyfuncitem.obj(**args), ASYNC_TEST_LIMIT)

        asyncio.run(bounded())
        return True
    return None
