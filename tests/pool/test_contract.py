"""The pool contract, run against both backends (local SQLite and PostgreSQL): docs/settlement.md and rules
11.5, 11.6, 12.1 - 12.4, and the ledger's, settings' and meter's requirements."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from tabled.game.progressive import ProgressiveHit, ProgressiveSchedule
from tabled.game.ranking import Category
from tabled.pool.base import Contribution, PoolError, ProgressivePool
from tabled.pool.ledger import RoundKeyMismatch
from tabled.pool.local import LocalPool
from tabled.pool.schema import LATEST
from tabled.pool.settings import PoolSettings
from tests.pool.pgserver import migrate_pool

ROYAL, SF, FLUSH = Category.ROYAL_FLUSH, Category.STRAIGHT_FLUSH, Category.FLUSH
NSW = ProgressiveSchedule(royal_minimum_cents=1_000_000, royal_pool_percent=100,
                          straight_flush_minimum_cents=100_000, straight_flush_pool_percent=10,
                          fixed_awards_cents={Category.FOUR_OF_A_KIND: 50_000, Category.FULL_HOUSE: 15_000,
                                              FLUSH: 10_000})
MAIN = PoolSettings(contribution_bp=7000, reset_cents=1_000_000)


def hit(spot, cat):
    return ProgressiveHit(spot, cat)


def test_both_backends_implement_the_interface(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        assert isinstance(pool, ProgressivePool)
        assert pool.name == "main"
        assert await pool.balance() == 1_000_000  # a new pool opens at its reset value
    harness.run(scenario)


def test_contribution_is_rate_times_wager_rounded_down_rest_retained(harness):
    # 11.6 and docs/settlement.md "Amounts": 70% of $1.01 is 70.7 cents -> 70 to the pool, 31 retained
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        c = await pool.contribute("T01", "R1", 3, 101)
        assert c == Contribution("T01", "R1", 3, 101, 70, 31, 0)
        assert await pool.balance() == 1_000_070
    harness.run(scenario)


def test_contribution_applied_once_whatever_the_retries(harness):
    # docs/settlement.md: keyed by (table, round, spot), applied once
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        first = await pool.contribute("T01", "R1", 3, 500)
        for _ in range(3):
            assert await pool.contribute("T01", "R1", 3, 500) == first
        await pool.contribute("T01", "R1", 4, 500)   # another spot
        await pool.contribute("T01", "R2", 3, 500)   # another round
        await pool.contribute("T02", "R1", 3, 500)   # another table
        assert await pool.balance() == 1_000_000 + 4 * 350
        with pytest.raises(PoolError, match="already contributed on a wager of 500 cents, not 600"):
            await pool.contribute("T01", "R1", 3, 600)
        assert (await pool.status()).contributions_since_reset == 4
        assert (await pool.verify()).ok
    harness.run(scenario)


@pytest.mark.parametrize("args, message", [
    (("", "R1", 1, 500), "table id"),
    (("T01", "", 1, 500), "round id"),
    (("T01", "R1", 0, 500), "spot"),
    (("T01", "R1", 13, 500), "spot"),
    (("T01", "R1", 1, 0), "whole cents > 0"),
    (("T01", "R1", 1, 5.0), "whole cents > 0"),
    (("T01", "R1", 1, True), "whole cents > 0"),
])
def test_bad_contribution_input_is_a_clear_error(harness, args, message):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        with pytest.raises(PoolError, match=message):
            await pool.contribute(*args)
        assert await pool.balance() == 1_000_000
    harness.run(scenario)


def test_reversal_keyed_the_same_way_and_once(harness):
    # 14.4 misdeal / 14.12 absent player: the contribution comes back out, once
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        await pool.contribute("T01", "R1", 2, 500)
        await pool.contribute("T01", "R1", 5, 500)
        assert await pool.reverse("T01", "R1", 2, "14.4 misdeal") == 350
        assert await pool.reverse("T01", "R1", 2, "14.4 misdeal") == 0
        assert await pool.reverse("T01", "R1", 6, "14.4 misdeal") == 0  # nothing was contributed there
        assert await pool.balance() == 1_000_350
        with pytest.raises(PoolError, match="reason"):
            await pool.reverse("T01", "R1", 5, " ")
        entries = await pool.ledger()
        assert [e.kind for e in entries] == ["open", "contribution", "contribution", "reversal"]
        assert entries[-1].reason == "14.4 misdeal" and entries[-1].delta_cents == -350
        assert (await pool.verify()).ok
    harness.run(scenario)


@pytest.mark.parametrize("pool_cents, hits, awards, pool_after", [
    # docs/settlement.md worked examples (NSW): three straight flushes share the aggregate of 10% payouts (12.3.2)
    (3_000_000, [hit(1, SF), hit(4, SF), hit(6, SF)], {6: 271_000, 4: 271_000, 1: 271_000}, 2_187_000),
    # one straight flush: 10% rounded down (12.1.2)
    (1_234_567, [hit(3, SF)], {3: 123_456}, 1_111_111),
])
def test_straight_flush_awards_money_examples(harness, pool_cents, hits, awards, pool_after):
    async def scenario(h):
        pool = await h.open(settings=PoolSettings(7000, pool_cents))
        result = await pool.apply_awards("T01", "R1", hits, NSW)
        assert {a.spot: a.amount_cents for a in result.awards} == awards
        assert [a.spot for a in result.awards] == sorted(awards, reverse=True)  # 12.2 right to left
        assert result.pool_after_cents == pool_after == await pool.balance()
        assert (await pool.verify()).ok
    harness.run(scenario)


def test_royal_below_minimum_operator_tops_up_and_pool_resets(harness):
    # docs/settlement.md: P = $6,000, one royal: $6,000 from the pool, $4,000 by the operator; the pool resets
    async def scenario(h):
        pool = await h.open(settings=PoolSettings(7000, 600_000))
        result = await pool.apply_awards("T01", "R1", [hit(2, ROYAL)], NSW)
        (award,) = result.awards
        assert (award.amount_cents, award.from_pool_cents, award.operator_topup_cents) == (1_000_000, 600_000, 400_000)
        assert result.reset and await pool.balance() == 600_000
        status = await pool.status()
        assert status.epoch == 1 and status.contributions_since_reset == 0
        assert "operator" in status.last_change_reason
        report = await pool.verify()
        assert report.ok and report.expected_cents == 600_000
    harness.run(scenario)


def test_a_rounds_awards_are_idempotent_by_table_and_round(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        first = await pool.apply_awards("T01", "R1", [hit(7, SF)], NSW, hands={7: "9h 8h 7h 6h 5h"})
        again = await pool.apply_awards("T01", "R1", [hit(7, SF)], NSW)
        assert again == first
        assert await pool.balance() == 900_000
        assert len(await pool.history()) == 1
    harness.run(scenario)


def test_hits_listed_in_payment_order_with_pool_before_and_after(harness):
    # 12.4: straight flush paid before royal; 12.2 then right to left; the last 25 hits listable
    async def scenario(h):
        pool = await h.open(settings=PoolSettings(7000, 2_000_000))
        await pool.apply_awards("T01", "R1", [hit(1, SF), hit(2, ROYAL), hit(5, FLUSH)], NSW,
                                hands={2: "As Ks Qs Js Ts"})
        newest_first = await pool.history()
        hits = list(reversed(newest_first))
        assert [(x.hit_seq, x.spot, x.category) for x in hits] == [
            (1, 5, "FLUSH"), (2, 1, "STRAIGHT_FLUSH"), (3, 2, "ROYAL_FLUSH")]
        assert hits[0].from_pool_cents == 0 and hits[0].topup_cents == 10_000  # 12.1.5 paid by the operator
        assert hits[1].pool_before_cents == 2_000_000 and hits[1].pool_after_cents == 1_800_000
        assert hits[2].pool_before_cents == 1_800_000 and hits[2].pool_after_cents == 0
        assert hits[2].hand == "As Ks Qs Js Ts" and hits[2].amount_cents == 1_800_000
        assert await pool.balance() == 2_000_000  # reset
        for r in range(30):
            await pool.apply_awards("T01", f"S{r}", [hit(3, FLUSH)], NSW)
        last = await pool.history()
        assert len(last) == 25 and last[0].hit_seq == 33 and last[-1].hit_seq == 9
    harness.run(scenario)


def test_meter_goes_down_only_on_award_reversal_correction(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        await pool.contribute("T01", "R1", 1, 500)
        await pool.contribute("T01", "R1", 2, 500)
        await pool.reverse("T01", "R1", 2, "14.12 player absent")
        await pool.apply_awards("T01", "R1", [hit(1, SF)], NSW)
        await pool.correct(-100, "meter drift found at audit", "inspector Jones")
        await pool.correct(250, "contribution lost in 2024 outage", "supervisor Lee")
        down = [e for e in await pool.ledger(100) if e.delta_cents < 0]
        assert [e.kind for e in down] == ["reversal", "award", "correction"]
        correction = [e for e in await pool.ledger(100) if e.kind == "correction"]
        assert [(e.who, e.delta_cents) for e in correction] == [("inspector Jones", -100), ("supervisor Lee", 250)]
        report = await pool.verify()
        assert report.ok and report.expected_cents == report.balance_cents == await pool.balance()
    harness.run(scenario)


@pytest.mark.parametrize("delta, reason, who, message", [
    (0, "x", "y", "non-zero"), (1.5, "x", "y", "non-zero"), (5, "", "y", "reason"), (5, "x", " ", "who"),
    (-2_000_000, "x", "y", "would leave"),
])
def test_a_correction_needs_who_why_and_cannot_go_below_zero(harness, delta, reason, who, message):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        with pytest.raises(PoolError, match=message):
            await pool.correct(delta, reason, who)
        assert await pool.balance() == 1_000_000
    harness.run(scenario)


def test_settings_change_takes_effect_only_after_the_jackpot_is_won(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        version = await pool.propose_settings(PoolSettings(5000, 2_000_000), "manager Ng", "new promotion")
        assert version == 2
        assert await pool.propose_settings(PoolSettings(5000, 2_000_000), "manager Ng", "again") == 2  # no change
        assert (await pool.status()).pending_settings_version == 2
        c = await pool.contribute("T01", "R1", 1, 1000)
        assert c.pool_cents == 700  # still the current jackpot's rate
        await pool.apply_awards("T01", "R1", [hit(1, SF)], NSW)  # not the jackpot: nothing changes
        assert (await pool.contribute("T01", "R2", 1, 1000)).pool_cents == 700
        await pool.apply_awards("T01", "R3", [hit(1, ROYAL)], NSW)
        assert await pool.balance() == 2_000_000  # the new reset value funds the next jackpot
        assert (await pool.contribute("T01", "R4", 1, 1000)).pool_cents == 500
        history = await pool.settings_history()
        assert [(v.version, v.who, v.active, v.pending) for v in history] == [
            (1, "config", False, False), (2, "manager Ng", True, False)]
        assert history[1].why == "new promotion"
        assert (await pool.verify()).ok
    harness.run(scenario)


def test_limit_sends_overflow_to_another_pool_and_reversal_takes_it_back(harness):
    async def scenario(h):
        reserve = await h.open("reserve", settings=PoolSettings(0, 0))
        main = await h.open(settings=PoolSettings(7000, 1_000_000, limit_cents=1_000_100, overflow_to="reserve"))
        await main.contribute("T01", "R1", 1, 100)                  # 70 fits
        c = await main.contribute("T01", "R1", 2, 100)              # 30 fits, 40 overflows
        assert (c.pool_cents, c.overflow_cents, c.retained_cents) == (30, 40, 30)
        assert await main.balance() == 1_000_100 and await reserve.balance() == 40
        assert await main.reverse("T01", "R1", 2, "14.4 misdeal") == 70
        assert await main.balance() == 1_000_070 and await reserve.balance() == 0
        assert (await main.verify()).ok and (await reserve.verify()).ok
    harness.run(scenario)


def test_limit_without_overflow_pool_leaves_the_excess_retained(harness):
    async def scenario(h):
        main = await h.open(settings=PoolSettings(7000, 1_000_000, limit_cents=1_000_050))
        c = await main.contribute("T01", "R1", 1, 100)
        assert (c.pool_cents, c.overflow_cents, c.retained_cents) == (50, 0, 50)
    harness.run(scenario)


def test_one_table_feeds_two_pools_and_the_reserve_funds_the_reset(harness):
    # 11.5: a main pool and a reserve that funds the next reset while it has enough
    async def scenario(h):
        reserve = await h.open("reserve", settings=PoolSettings(1000, 0))
        main = await h.open(settings=PoolSettings(7000, 1_000, reset_from="reserve"))
        for pool in (main, reserve):
            await pool.contribute("T01", "R1", 1, 10_000)
        assert await main.balance() == 8_000 and await reserve.balance() == 1_000
        await main.apply_awards("T01", "R1", [hit(1, ROYAL)], NSW)
        assert await reserve.balance() == 0 and await main.balance() == 1_000
        assert "reserve pool reserve" in (await main.status()).last_change_reason
        await main.apply_awards("T01", "R2", [hit(1, ROYAL)], NSW)  # the reserve is empty now
        assert "operator" in (await main.status()).last_change_reason
        assert (await main.verify()).ok and (await reserve.verify()).ok
    harness.run(scenario)


def test_ledger_is_append_only(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        await pool.contribute("T01", "R1", 1, 500)
        for statement in ("UPDATE ledger SET delta_cents = 0", "DELETE FROM contributions",
                          "DELETE FROM ledger", "DELETE FROM pool_settings"):
            with pytest.raises(h.refusal, match="append-only"):
                h.execute(statement)
        assert (await pool.verify()).ok
    harness.run(scenario)


def test_verify_names_a_meter_that_disagrees_with_the_ledger(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        await pool.contribute("T01", "R1", 1, 500)
        h.execute("UPDATE pools SET balance_cents = balance_cents + 999")
        report = await pool.verify()
        assert not report.ok
        assert report.balance_cents == 1_001_349 and report.expected_cents == 1_000_350
        assert any("meter shows 1001349" in p for p in report.problems)
    harness.run(scenario)


def test_reconcile_names_every_difference(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        await pool.contribute("T01", "R1", 1, 500)
        await pool.contribute("T01", "R1", 2, 500)
        await pool.contribute("T01", "R2", 1, 500)
        await pool.contribute("T02", "R1", 1, 500)   # another table: not compared
        await pool.reverse("T01", "R2", 1, "14.4 misdeal")
        journal = [Contribution("T01", "R1", 1, 500, 350, 150),
                   {"table_id": "T01", "round_id": "R1", "spot": 2, "wager_cents": 600},
                   {"round_id": "R3", "spot": 4, "wager_cents": 500}]
        report = await pool.reconcile(journal)
        assert not report.ok and report.table_id == "T01" and report.compared == 3
        assert report.missing_in_pool == (("R3", 4),)
        assert report.missing_in_journal == (("R2", 1),)
        assert report.differences == ("round R1 spot 2: journal wager 600 cents, pool 500 cents",)
        await pool.contribute("T01", "R3", 4, 500)  # deliver what the journal holds
        fixed = [journal[0], {"round_id": "R1", "spot": 2, "wager_cents": 500}, journal[2],
                 {"round_id": "R2", "spot": 1, "wager_cents": 500}]
        assert (await pool.reconcile(fixed, reversed_keys=[("R2", 1)])).ok
        assert (await pool.reconcile(fixed)).differences \
            == ("round R2 spot 1: reversed in the pool, not in the journal",)
    harness.run(scenario)


def test_schema_is_created_versioned_and_data_survives_reopening(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        await pool.contribute("T01", "R1", 1, 500)
        await pool.close()
        again = await h.open()  # no settings needed: the pool exists
        assert await again.balance() == 1_000_350
        assert h.execute("SELECT version FROM schema_version") == [(LATEST,)]
        if h.backend == "local":
            assert h.execute("PRAGMA journal_mode") == [("wal",)]
        with pytest.raises(PoolError, match="no pool named 'other'"):
            await h.open("other")
    harness.run(scenario)


def test_a_newer_schema_than_this_tabled_knows_is_refused(harness):
    async def scenario(h):
        await (await h.open(settings=MAIN)).close()
        h.execute("UPDATE schema_version SET version = 999")
        with pytest.raises(PoolError, match="schema version 999"):
            await h.open()
    harness.run(scenario)


def test_meter_subscription_sees_every_change_in_order(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        watcher = await h.open(table_id="T02")
        feed = watcher.subscribe_meter()
        first = await anext(feed)
        assert (first.balance_cents, first.kind) == (1_000_000, "open")
        await pool.contribute("T01", "R1", 1, 1000)
        await pool.apply_awards("T01", "R1", [hit(1, SF)], NSW)
        seen = [await asyncio.wait_for(anext(feed), 5) for _ in range(2)]
        assert [(r.balance_cents, r.kind) for r in seen] == [(1_000_700, "contribution"), (900_630, "award")]
        assert seen[0].seq < seen[1].seq
        await feed.aclose()
    harness.run(scenario)


def test_a_meter_reading_names_the_table_whose_award_moved_the_pool_2_4_3(harness):
    # every linked table can show another table's hit ("award pending" on the dealer's screen)
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        watcher = await h.open(table_id="T02")
        feed = watcher.subscribe_meter()
        await anext(feed)
        await pool.contribute("T01", "R1", 1, 1000)
        result = await pool.apply_awards("T01", "R1", [hit(1, SF)], NSW)
        seen = [await asyncio.wait_for(anext(feed), 5) for _ in range(2)]
        assert [(r.table_id, r.round_id, r.award_cents) for r in seen] == [
            ("T01", "R1", 0), ("T01", "R1", result.awards[0].amount_cents)]
        await feed.aclose()
    harness.run(scenario)


def test_a_held_hit_is_paid_from_the_pool_as_it_stands_on_return(harness):
    # docs/settlement.md 14.13: paid when the link returns, never from a stale reading; the hold time is recorded
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        other = await h.open(table_id="T02")
        stale = await pool.balance()
        held_since = h.clock()  # the hand was held at this moment
        await other.contribute("T02", "R9", 1, 10_000)            # the pool moved on meanwhile
        result = await pool.apply_awards("T01", "R5", [hit(4, SF)], NSW, held_since=held_since)
        assert result.pool_before_cents == stale + 7_000
        (record,) = await pool.history()
        assert record.held_since == held_since.isoformat(timespec="microseconds") and record.at > record.held_since
    harness.run(scenario)


@pytest.mark.parametrize("bad, message", [
    (dict(contribution_bp=10_001, reset_cents=0), "basis points"),
    (dict(contribution_bp=7000, reset_cents=-1), "reset_cents"),
    (dict(contribution_bp=7000, reset_cents=100, limit_cents=50), "below reset_cents"),
    (dict(contribution_bp=7000, reset_cents=100, overflow_to="reserve"), "needs limit_cents"),
    (dict(contribution_bp=7000, reset_cents=100, limit_cents=500, overflow_to="Bad-Name"), "pool name"),
])
def test_bad_settings_are_refused_with_the_key_named(bad, message):
    with pytest.raises(PoolError, match=message):
        PoolSettings(**bad)


def test_a_rounds_contributions_in_one_transaction_all_or_nothing(harness):
    # 7.2.1: every spot locks at "no more bets"; the round's contributions go together, each keyed
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        await pool.contribute("T01", "R1", 2, 500)                       # sent before a crash
        got = await pool.contribute_round("T01", "R1", {1: 500, 2: 500, 7: 1000})
        assert [(c.spot, c.pool_cents) for c in got] == [(1, 350), (2, 350), (7, 700)]
        assert await pool.contribute_round("T01", "R1", {1: 500, 2: 500, 7: 1000}) == got
        assert await pool.balance() == 1_001_400
        with pytest.raises(PoolError, match="spot 7: already contributed on a wager of 1000 cents, not 500"):
            await pool.contribute_round("T01", "R1", {3: 500, 7: 500})
        assert await pool.balance() == 1_001_400                         # spot 3 was not applied either
        with pytest.raises(PoolError, match="on spot 4"):
            await pool.contribute_round("T01", "R2", {4: -5})
        assert await pool.contribute_round("T01", "R3", {}) == []
        assert (await pool.verify()).ok
    harness.run(scenario)


def test_a_config_asking_for_other_settings_changes_nothing_and_is_told(tmp_path):
    """N.J.A.C. 13:69D-1.52: a pool's settings change only by two people (tabled pool propose), never
    by a table's config; the opening version is the config's."""
    async def scenario():
        pool = await LocalPool.open(tmp_path / "p.db", "main", "T01", MAIN, who="config:T01")
        assert pool.config_differs is None
        await pool.close()
        pool = await LocalPool.open(tmp_path / "p.db", "main", "T01", PoolSettings(6000, 1_000_000), who="config:T01")
        history = await pool.settings_history()
        assert [(v.version, v.who, v.why, v.active) for v in history] == [(1, "config:T01", "pool opened", True)]
        assert pool.config_differs == "contribution_bp 6000 (version 1: 7000)"
        await pool.close()
    asyncio.run(scenario())


# -- round identity: a round id is not unique on its own ------------------------------------------------

KEY_A, KEY_B = "a" * 64, "b" * 64  # the hashes of two rounds' opening records


def test_a_repeat_from_another_round_with_the_same_id_is_refused_not_answered(harness):
    # a restored journal, two tables with one id or a rewound counter play round R1 again: that
    # round's contribution, reversal and awards must reach the pool or be refused, never be taken
    # for a repeat and answered with the other round's split or result (11.6, 12.1)
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        first = await pool.contribute_round("T01", "R1", {1: 500, 2: 500}, round_key=KEY_A)
        assert await pool.contribute_round("T01", "R1", {1: 500, 2: 500}, round_key=KEY_A) == first
        balance = await pool.balance()
        with pytest.raises(RoundKeyMismatch, match="round R1 spot 1: the pool holds another round with this id"):
            await pool.contribute_round("T01", "R1", {1: 500, 2: 500}, round_key=KEY_B)
        with pytest.raises(RoundKeyMismatch, match="spot 2"):
            await pool.contribute("T01", "R1", 2, 500, round_key=KEY_B)
        with pytest.raises(RoundKeyMismatch):
            await pool.reverse("T01", "R1", 1, "14.4 misdeal", round_key=KEY_B)
        paid = await pool.apply_awards("T01", "R1", [hit(1, SF)], NSW, round_key=KEY_A)
        with pytest.raises(RoundKeyMismatch, match="round R1 awards"):
            await pool.apply_awards("T01", "R1", [hit(2, SF)], NSW, round_key=KEY_B)
        assert await pool.apply_awards("T01", "R1", [hit(1, SF)], NSW, round_key=KEY_A) == paid
        assert await pool.balance() == balance - paid.awards[0].from_pool_cents   # nothing else moved
        assert await pool.reverse("T01", "R1", 2, "14.4 misdeal", round_key=KEY_A) == 350
        assert (await pool.verify()).ok
    harness.run(scenario)


def test_rows_without_a_round_key_are_answered_as_before(harness):
    # rows written before round keys (and callers that send none) keep today's meaning
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        first = await pool.contribute("T01", "R1", 1, 500)
        assert await pool.contribute("T01", "R1", 1, 500, round_key=KEY_A) == first
        keyed = await pool.contribute("T01", "R2", 1, 500, round_key=KEY_A)
        assert await pool.contribute("T01", "R2", 1, 500) == keyed
        assert await pool.balance() == 1_000_700
    harness.run(scenario)


def test_a_table_id_is_bound_to_the_journal_it_first_played_from(harness):
    # two tables configured with one id would play the same round ids: the second is refused
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        await pool.register_table("T01", "1" * 64)
        await pool.register_table("T01", "1" * 64)     # the same journal again (a restart, a restore)
        await pool.register_table("T02", "2" * 64)
        with pytest.raises(PoolError, match="table T01 already plays here with another journal .*each table"
                                            " needs its own id"):
            await pool.register_table("T01", "2" * 64)
        assert await pool.last_round("T01") is None
        await pool.contribute("T01", "R1", 1, 500, round_key=KEY_A)
        await pool.contribute("T02", "R9", 1, 500)
        await pool.contribute("T01", "R2", 3, 500, round_key=KEY_B)
        assert await pool.last_round("T01") == ("R2", KEY_B)
        assert await pool.last_round("T02") == ("R9", None)
    harness.run(scenario)


def test_reconcile_lists_what_is_owed_in_flight_and_from_another_round(harness):
    async def scenario(h):
        pool = await h.open(settings=MAIN)
        await pool.contribute("T01", "R1", 1, 500, round_key=KEY_A)   # answered in the journal
        await pool.contribute("T01", "R2", 1, 500, round_key=KEY_A)   # applied, answer lost in a crash
        await pool.contribute("T01", "R3", 1, 500, round_key=KEY_B)   # another journal's round R3
        journal = [{"round_id": "R1", "spot": 1, "wager_cents": 500}]
        keys = {"R1": [KEY_A], "R2": [KEY_A], "R3": [KEY_A], "R4": [KEY_A]}
        owed = [("R2", 1, 500), ("R3", 1, 500), ("R4", 2, 500)]
        report = await pool.reconcile(journal, round_keys=keys, owed=owed)
        assert not report.ok
        assert report.in_flight == (("R2", 1),)                 # the next start records it
        assert report.owed == (("R3", 1, 500), ("R4", 2, 500))   # not in the pool: delivered at the next start
        assert report.missing_in_journal == ()
        assert len(report.differences) == 1 and "R3 spot 1: the pool's contribution is from another round" \
            in report.differences[0]
        settled = journal + [{"round_id": "R3", "spot": 1, "wager_cents": 500}]
        assert (await pool.reconcile(settled, round_keys={**keys, "R3": [KEY_B]}, owed=[("R2", 1, 500)])).ok
        assert not (await pool.reconcile(journal, round_keys=keys)).ok
    harness.run(scenario)


def test_a_pool_made_before_round_keys_is_migrated_and_its_rows_answered_as_before(harness, monkeypatch):
    # a pool database at schema version 1 (as made before round keys) opens, migrates to the
    # latest version, and its rows, which have no round key, keep their meaning
    from tabled.pool import postgresql, schema
    monkeypatch.setattr(schema, "MIGRATIONS", {d: m[:1] for d, m in schema.MIGRATIONS.items()})
    for module in (schema, postgresql):  # the migration, and the version a linked table expects
        monkeypatch.setattr(module, "LATEST", 1)

    def contribute_as_version_1(h):
        """One contribution as a version-1 pool recorded it: a ledger row, a contributions row
        without a round key, the pool's balance and ledger head moved on."""
        (balance, epoch, seq), = h.execute("SELECT balance_cents, epoch, ledger_seq FROM pools WHERE name = %s",
                                            ("main",))
        at = "2025-01-01T00:00:00+00:00"
        h.execute("INSERT INTO ledger (pool, seq, kind, delta_cents, balance_after_cents, epoch, table_id,"
                  " round_id, spot, reason, who, at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                  ("main", seq + 1, "contribution", 350, balance + 350, epoch, "T01", "R1", 1,
                   "progressive wager (11.6)", None, at))
        h.execute("INSERT INTO contributions (pool, table_id, round_id, spot, wager_cents, pool_cents,"
                  " retained_cents, overflow_cents, ledger_seq, at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                  ("main", "T01", "R1", 1, 500, 350, 150, 0, seq + 1, at))
        h.execute("UPDATE pools SET balance_cents = %s, ledger_seq = %s WHERE name = %s",
                  (balance + 350, seq + 1, "main"))

    def open_as_version_1(h):
        """The pool as a version-1 database held it once opened: the pool's row, its settings and
        the opening ledger row (a table of version 1 wrote them itself)."""
        migrate_pool(h.where)
        with psycopg.connect(h.where) as conn:
            at = "2025-01-01T00:00:00+00:00"
            conn.execute("INSERT INTO pools (name, balance_cents, epoch, settings_version, ledger_seq, hit_seq,"
                         " created_at) VALUES ('main', %s, 0, 1, 1, 0, %s)", (MAIN.reset_cents, at))
            conn.execute("INSERT INTO pool_settings (pool, version, contribution_bp, reset_cents, who, why,"
                         " proposed_at) VALUES ('main', 1, %s, %s, 'config:T01', 'pool opened', %s)",
                         (MAIN.contribution_bp, MAIN.reset_cents, at))
            conn.execute("INSERT INTO ledger (pool, seq, kind, delta_cents, balance_after_cents, epoch, reason, at)"
                         " VALUES ('main', 1, 'open', %s, %s, 0, 'pool opened at its reset value', %s)",
                         (MAIN.reset_cents, MAIN.reset_cents, at))

    async def scenario(h):
        if h.backend == "local":
            await (await h.open(settings=MAIN)).close()
            h.execute("DROP TABLE pool_chain")  # a tabled of version 1 kept no chain (tabled/pool/chain.py)
            h.execute("DROP TABLE pool_seals")
        else:
            open_as_version_1(h)
        contribute_as_version_1(h)
        monkeypatch.undo()
        pool = await h.open()
        assert await pool.contribute("T01", "R1", 1, 500, round_key=KEY_A) \
            == Contribution("T01", "R1", 1, 500, 350, 150)
        assert await pool.last_round("T01") == ("R1", None)
        await pool.register_table("T01", "1" * 64)
        await pool.contribute("T01", "R2", 1, 500, round_key=KEY_A)
        assert await pool.balance() == 1_000_700 and (await pool.verify()).ok
        assert (await pool.reconcile([{"round_id": "R1", "spot": 1, "wager_cents": 500},
                                      {"round_id": "R2", "spot": 1, "wager_cents": 500}],
                                     round_keys={"R1": [KEY_B], "R2": [KEY_A]})).ok
        assert h.execute("SELECT version FROM schema_version") == [(LATEST,)]
    harness.run(scenario)
