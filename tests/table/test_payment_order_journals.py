"""Progressive payments are confirmed in the order the pool's journaled result lists (9.5, 12.2,
12.4): a round journaled with the payment order of an earlier release replays as it was played."""

from __future__ import annotations

from tabled.table.core import TableCore
from tabled.table.poolbook import result_as_dict
from tabled.game.progressive import ProgressiveHit, award_progressive
from tabled.game.ranking import Category
from tabled.journal.store import Journal
from tabled.daemon.controller import Table

from .harness import Harness, notes, refused
from .test_rules_gaps import DEALER_QUALIFIES

DEAL = {1: "9h Th Jh Qh Kh",    # straight flush
        2: "3c 3d 3s 8c 8d",    # full house
        3: "As Ks Qs Js Ts",    # royal flush
        "dealer": DEALER_QUALIFIES}


def settling() -> Harness:
    h = Harness()
    h.auto_pool = False
    for n in (1, 2, 3):
        h.ante(n, 500, progressive=True)
    h.panel("no_more_bets")
    h.deal(DEAL)
    for n in (1, 2, 3):
        h.bet(n)
    h.panel("reveal")
    h.panel("settle")
    return h


def pool_result(h: Harness, order: list[int]) -> dict:
    """The pool's award result for the round, its awards listed in ``order``."""
    hits = [ProgressiveHit(1, Category.STRAIGHT_FLUSH), ProgressiveHit(2, Category.FULL_HOUSE),
            ProgressiveHit(3, Category.ROYAL_FLUSH)]
    result = result_as_dict(award_progressive(h.pool.balance, hits, h.profile.progressive_schedule))
    by_spot = {a["spot"]: a for a in result["awards"]}
    return {**result, "awards": [by_spot[s] for s in order]}


def replayed(tmp_path, h: Harness) -> tuple[TableCore, list]:
    class Clock:
        now = 0.0

        def __call__(self) -> float:
            return self.now
    clock = Clock()
    with Journal.open(tmp_path / "journal.db", clock=clock) as journal:
        for kind, payload, t in h.inputs:
            clock.now = t / 1000
            journal.append(kind, payload)
        core, notes, _ = Table.replay(journal, lambda snap: TableCore("T01", 7, h.limits, h.profile, "shuffler"))
    return core, notes


def test_a_round_journaled_in_the_earlier_payment_order_replays_without_refusal_12_2_12_4(tmp_path):
    # the earlier release listed every royal flush last: straight flush and full house right to left, then
    # the royal; its dealer confirmed in that order, and the fold must accept it on replay
    h = settling()
    rid = h.round.round_id
    h.feed("pool.awards", round_id=rid, result=pool_result(h, [2, 1, 3]))
    for spot in (2, 1, 3):
        assert not refused(h.panel("award_paid", spot=spot))
    assert h.core.rounds_finished == 1
    core, notes = replayed(tmp_path, h)
    assert core.rounds_finished == 1
    assert [n.kind for n in notes if n.round_id == rid][-1] == "round.finished"


def test_payments_follow_the_journaled_list_not_a_recomputed_order_12_2_12_4(tmp_path):
    # today's order (12.4: the straight flush just before the royal) is what today's pool lists
    h = settling()
    rid = h.round.round_id
    h.feed("pool.awards", round_id=rid, result=pool_result(h, [1, 3, 2]))
    assert refused(h.panel("award_paid", spot=2))[0].rule == "12.2"
    for spot in (1, 3, 2):
        assert not refused(h.panel("award_paid", spot=spot))
    core, _ = replayed(tmp_path, h)
    assert core.rounds_finished == 1


def test_the_settle_done_button_confirms_payments_in_the_order_of_12_2_and_12_4_9_5():
    # the panel's one button pays the awards one press at a time, in the order the pool listed them
    h = settling()
    h.auto_pool = True
    h.run_pool(next(e for e in h.log if getattr(e, "op", None) == "awards"))
    assert [a["spot"] for a in h.round.awards["awards"]] == [1, 3, 2]   # 12.4 then 12.2
    pressed = []
    for _ in range(3):
        eff = h.press("settle_done")
        assert not refused(eff)
        pressed += [e.spot for e in eff if getattr(e, "rule", None) == "9.5" and "progressive paid" in e.text]
    assert pressed == [1, 3, 2] and h.core.rounds_finished == 1
    assert not notes(h.log, "panel.refused")
