"""The pit's view as a pure view (tabled/views/pit.py): the last ten rounds as `tabled settle`
prints them (16.11), the pool's hits, approvals and refusals by key, the 14.13 faults cleared and
who let them clear, the devices' links."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies as st

from tabled.game.settlement import settlement_from_dict
from tabled.game.settlement_text import render
from tabled.table.effects import Note, PoolOp
from tabled.views.pit import HITS_KEPT, KINDS, ROUNDS_KEPT, PitLog, pit_devices, pit_view
from tabled.views.screen import screen_view
from tests.table.harness import Harness

HITS = {2: "9s 8s 7s 6s 5s", 5: "Ah Kh Qh Jh Th", 6: "2d 5d 9d Jd Kd", "dealer": "Ac Kc 4c 3s 2h"}
PLAIN = {4: "2c 7d 9h Js Kd", "dealer": "Ac Kc 4d 3s 2h"}


class Journaled(Harness):
    """A harness whose inputs and notes go to a pit's log in the order a journal holds them."""

    def __init__(self) -> None:
        self.pit = PitLog()
        self.seq = 0
        self.settled: list[Any] = []
        super().__init__()

    def record(self, kind: str, payload: dict[str, Any], round_id: str | None) -> None:
        self.seq += 1
        if kind in KINDS:
            self.pit.take(self.seq, self.t, round_id, kind, payload)

    def feed(self, kind: str, **payload: Any) -> list[Any]:
        self.record(kind, dict(payload), self.core.round_id)
        effects = self.core.apply(kind, payload, self.t)
        self.log.extend(effects)
        for e in effects:
            if isinstance(e, Note):
                self.record(e.kind, e.payload, e.round_id)
                if e.kind == "round.settled":
                    self.settled.append(e)
        out = list(effects)
        for e in effects:
            if isinstance(e, PoolOp):
                out += self.run_pool(e)
        return out

    def plain_round(self) -> None:
        self.t += 1000
        self.ante(4, 500)
        self.panel("no_more_bets")
        self.deal(PLAIN)
        self.panel("fold", spot=4)
        self.panel("reveal")
        self.panel("settle")
        self.prepare_cards()

    def hits_round(self) -> None:
        self.t += 1000
        for spot in (2, 5, 6):
            self.ante(spot, 1000, progressive=True)
        self.panel("no_more_bets")
        self.deal(HITS)
        for spot in (2, 5, 6):
            self.bet(spot)
        self.panel("reveal")
        self.panel("settle")
        for spot in (6, 2, 5):  # 12.2, 12.4
            self.panel("award_paid", spot=spot)
        self.prepare_cards()


def view(h: Journaled) -> dict[str, Any]:
    journal = {"head_seq": h.seq, "head_hash": "x", "verified_seq": h.seq, "ok": True, "problem": None}
    return pit_view(screen_view(h.core), pit_devices(h.core), h.pit, journal)


def test_the_last_ten_rounds_newest_first_each_as_tabled_settle_prints_it_16_11():
    h = Journaled()
    h.hits_round()
    for _ in range(ROUNDS_KEPT + 1):
        h.plain_round()
    v = view(h)
    assert len(h.settled) == ROUNDS_KEPT + 2
    shown = v["rounds"]
    assert [r["round_id"] for r in shown] == [n.round_id for n in reversed(h.settled)][:ROUNDS_KEPT]
    for r, note in zip(shown, reversed(h.settled)):
        st_ = settlement_from_dict(note.payload)
        assert r["table"] == render(st_)
        assert (r["house_pays_cents"], r["house_collects_cents"]) == (st_.house_pays_cents, st_.house_collects_cents)
    assert shown[0]["totals"] == "house pays $0.00, collects $5.00"  # the folded ante (8.4)


def test_the_pools_hits_with_where_each_award_came_from():
    h = Journaled()
    h.hits_round()
    hits = view(h)["pool"]["hits"]
    result = h.pool.awards[h.settled[0].round_id]
    # newest first: the awards in reverse payment order
    assert [(x["spot"], x["category"], x["amount_cents"]) for x in reversed(hits)] == \
        [(a["spot"], a["category"], a["amount_cents"]) for a in result["awards"]]
    assert {x["pool_before_cents"] for x in hits} == {result["pool_before_cents"]}
    royal, = [x for x in hits if x["spot"] == 5]
    assert royal["text"].startswith("spot 5 royal flush $") and "operator $" in royal["text"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=60))
def test_hits_are_bounded_and_the_newest_are_kept(awards_per_answer):
    log = PitLog()
    n = 0
    for seq, count in enumerate(awards_per_answer, 1):
        awards = [{"spot": i + 1, "category": "flush", "amount_cents": (n := n + 1), "from_pool_cents": n,
                   "operator_topup_cents": 0, "rule": "11.8"} for i in range(count)]
        log.take(seq, seq, f"R{seq}", "progressive.awarded", {"pool": "main", "result": {"awards": awards}})
    assert [x["amount_cents"] for x in log.hits] == list(range(1, n + 1))[-HITS_KEPT:]


def test_approvals_refusals_and_who_let_a_14_13_fault_clear():
    h = Journaled()
    h.t = 60_000
    h.feed("equipment.fault", equipment="meter", reason="display dark")
    h.t = 90_000
    h.panel("approve_play", key="supervisor")  # refused: an inspector's (14.13)
    h.t = 120_000
    h.panel("approve_play", key="inspector")
    h.t = 180_000
    h.feed("equipment.ok", equipment="meter")
    v = view(h)
    assert [(d["key"], d["action"], d["verdict"], d["rule"]) for d in v["decisions"][:2]] == [
        ("inspector", "approve_play", "approved", "14.13"), ("supervisor", "approve_play", "refused", "14.13")]
    cleared, = v["faults"]["cleared"]
    assert cleared["equipment"] == "meter" and cleared["reason"] == "display dark"
    assert cleared["raised"]["time_ms"] == 60_000 and cleared["cleared"]["time_ms"] == 180_000
    assert cleared["by"]["key"] == "inspector" and cleared["by"]["time_ms"] == 120_000
    assert cleared["by_text"] == "inspector approved play (14.13)"
    assert v["faults"]["open"] == []


def test_a_fault_that_clears_without_an_inspector_is_cleared_by_the_equipment():
    h = Journaled()
    h.feed("device.link", device="betspots", up=False, reason="cable")
    v = view(h)
    board, = [d for d in v["devices"] if d["device"] == "betspots"]
    assert not board["up"] and board["link"] == "lost: cable" and board["fault"] == "link lost: cable"
    assert v["faults"]["open"][0]["rule"] == "14.13"
    h.panel("approve_play", key="inspector")
    h.feed("device.link", device="betspots", up=True, reason="")
    v = view(h)
    cleared, = v["faults"]["cleared"]
    assert cleared["by_text"] == "inspector approved play (14.13)"
    # a second fault, cleared with no approval after it was raised: the equipment, working again
    h.feed("equipment.fault", equipment="pool", reason="link lost")
    h.feed("equipment.ok", equipment="pool")
    assert view(h)["faults"]["cleared"][0]["by"] is None
    assert view(h)["faults"]["cleared"][0]["by_text"] == "the equipment, working again"
    assert all(d["up"] for d in view(h)["devices"])
