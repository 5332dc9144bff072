"""A soak: many whole rounds over the ports with memory flat (nothing kept per round in memory:
the journal and the pool keep the history, on disk)."""

from __future__ import annotations

import gc
import os
import tracemalloc

import structlog

import pytest

from tabled.host.log import configure_logging
from tests.integration.harness import journal_records, play

WARM_UP, MEASURED = 40, 120


@pytest.mark.slow
@pytest.mark.timeout(1200)  # a bound on a hang only: 160 rounds on a busy machine
async def test_soak_many_rounds_memory_flat(tmp_path):
    devnull = open(os.devnull, "w")
    configure_logging("json", "warning", stream=devnull)
    samples = []

    async def scenario(run):
        run.table.display = None  # the harness's own record of the dealer's lines would grow
        await run.rounds(WARM_UP)
        gc.collect()
        tracemalloc.start()
        samples.append(tracemalloc.get_traced_memory()[0])
        for _ in range(MEASURED // 40):
            await run.rounds(40)
            gc.collect()
            samples.append(tracemalloc.get_traced_memory()[0])
        tracemalloc.stop()

    try:
        await play(tmp_path, scenario)
    finally:
        structlog.reset_defaults()  # later tests log as before (not to a closed file)
        devnull.close()
    assert len(journal_records(tmp_path, "round.settled")) >= WARM_UP + MEASURED
    print(f"traced memory after {WARM_UP} rounds and every 40 rounds after: {samples} bytes")
    growth = samples[-1] - samples[0]
    # bounded: caches (the pit's last rounds, the screen) fill once in the first 40 rounds, then stay
    assert growth < 512 * 1024, f"memory grew {growth} bytes: {samples}"
    # flat: after they have filled, nothing is kept per round
    per_round = (samples[-1] - samples[1]) / (MEASURED - 40)
    assert per_round < 2048, f"memory grew {per_round:.0f} bytes a round after the first 40: {samples}"
