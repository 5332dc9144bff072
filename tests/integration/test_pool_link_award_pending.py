"""A linked pool's "award pending" (2.4.3, 12.1): two tables' daemons on one PostgresPool (a
PostgreSQL the test starts, tests/conftest.py). Table T01 hits a straight flush; the pool's meter
reading names T01 and the award, T02's fold keeps it and T02's dealer's screen shows it beside the
meter until T01 contributes again (its award paid, its next round locked)."""

from __future__ import annotations

import pytest

from tabled.game.settlement import money
from tabled.views.screen import screen_view
from tests.integration.test_pool_link import STRAIGHT_FLUSH, LinkedTable
from tests.pool.proxy import LinkProxy

pytestmark = pytest.mark.postgres


async def test_table_b_s_screen_says_award_pending_after_table_a_s_hit_until_a_plays_on(tmp_path, pg_dsn):
    tables = []
    try:
        for name in ("T01", "T02"):
            proxy = await LinkProxy(pg_dsn).start()
            tables.append(await LinkedTable(tmp_path, name, proxy).start())
        a, b = tables
        await a.bets_placed()
        await a.dealt(STRAIGHT_FLUSH)
        await a.decided()
        await a.revealed()
        await a.settled()
        await a.until(lambda: a.round.awards is not None)
        award = a.round.awards["awards"][0]["amount_cents"]
        balance = await a.pool.balance()
        await b.until(lambda: b.core.pool.cents == balance and b.core.pool.award_pending is not None)
        shown = screen_view(b.core)["meter"]
        assert shown["text"] == money(balance)
        assert shown["award_pending"]["text"] == f"progressive hit at table T01, {money(award)}: award pending"
        assert shown["award_pending"]["round_id"] == a.records("round.settled")[-1].round_id
        # journaled as T02's input: the reading names the table and the award
        (reading,) = [r for r in b.records("pool.meter") if r.payload.get("award_cents")]
        assert reading.payload["table_id"] == "T01" and reading.payload["award_cents"] == award
        assert screen_view(a.core)["meter"]["award_pending"] is None   # T01's own hit is its banner
        await b.whole_round()                                           # T02 plays on: still pending
        assert screen_view(b.core)["meter"]["award_pending"] is not None
        await a.feed("panel", action="award_paid", spot=3, key="dealer")
        await a.next_deck_shuffled()
        await a.bets_placed()
        await a.feed("panel", action="no_more_bets", key="dealer")     # T01's next contributions
        await b.until(lambda: b.core.pool.award_pending is None)
        assert screen_view(b.core)["meter"]["award_pending"] is None
    finally:
        for t in tables:
            await t.close()
            await t.proxy.close()
