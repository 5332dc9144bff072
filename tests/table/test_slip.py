"""The hand-pay slip of a progressive award (tabled/views/slip.py; 9.5, 12.1, 12.2, 12.4): made
from the round's journal records as the daemon writes them (each input, then the notes it caused),
its figures are the settlement's and the pool's, and it names who confirmed the payment."""

from __future__ import annotations

from typing import Any

import pytest

from tabled.game.settlement import settlement_from_dict
from tabled.table.effects import Note, PoolOp
from tabled.views.slip import KINDS, SlipError, awards_before, hand_pay_slip

from .harness import Harness
from .test_staff import ROSTER, staffed

HITS = {2: "9s 8s 7s 6s 5s", 5: "Ah Kh Qh Jh Th", 6: "2d 5d 9d Jd Kd", "dealer": "Ac Kc 4c 3s 2h"}


class Journaled:
    """The harness's table with its inputs and notes numbered as the journal numbers them."""

    def __init__(self, h: Harness):
        self.h = h
        h.auto_pool = False
        self.records: list[tuple[int, int, str | None, str, dict[str, Any]]] = []

    def feed(self, kind: str, **payload: Any) -> list[Any]:
        rid = self.h.core.round_id
        self.records.append((len(self.records) + 1, self.h.t, rid, kind, dict(payload)))
        out = self.h.feed(kind, **payload)
        for e in out:
            if isinstance(e, Note):
                self.records.append((len(self.records) + 1, self.h.t, e.round_id, e.kind, dict(e.payload)))
        for e in out:
            if isinstance(e, PoolOp):
                if e.op == "contribute":
                    self.feed("pool.contributed", round_id=e.round_id, spot=e.spot,
                              balance_cents=self.h.pool.contribute(e.round_id, e.spot, e.cents))
                elif e.op == "awards":
                    self.feed("pool.awards", round_id=e.round_id, result=self.h.pool.apply_awards(e.round_id, e.hits))
        return out

    def of_round(self, rid: str) -> list[tuple[int, int, str, dict[str, Any]]]:
        return [(seq, t, kind, p) for seq, t, r, kind, p in self.records if r == rid and kind in KINDS]

    def seq(self, kind: str, **match: Any) -> int:
        return next(seq for seq, _, _, k, p in self.records
                    if k == kind and all(p.get(a) == v for a, v in match.items()))

    def round_to_settlement(self, spots=(2, 5, 6), hands: dict[int | str, str] = HITS) -> str:
        from tabled.game.cards import parse_cards
        for spot in spots:
            self.feed("wager", spot=spot, area="ante", cents=1000)
            self.feed("wager", spot=spot, area="progressive", cents=100)
        self.feed("panel", action="no_more_bets", key="dealer")
        rid = self.h.round.round_id
        for target in self.h.round.dealt_to:
            self.feed("shuffler.hand", cards=list(parse_cards(hands[target])), back=self.h.round.back)
        for spot in spots:
            self.feed("wager", spot=spot, area="bet", cents=2000)
        self.feed("panel", action="reveal", key="dealer")
        self.feed("panel", action="settle", key="dealer")
        return rid


def test_each_award_s_slip_has_the_settlement_s_figures_and_the_pool_before_and_after_it_12_2_12_4():
    j = Journaled(Harness())
    rid = j.round_to_settlement()
    for spot in (6, 2, 5):  # 12.2 right to left; 12.4 the straight flush before the royal
        j.feed("panel", action="award_paid", key="dealer", spot=spot)
    settled = settlement_from_dict(next(p for _, _, k, p in j.of_round(rid) if k == "round.settled"))
    result = next(p for _, _, k, p in j.of_round(rid) if k == "progressive.awarded")["result"]
    before = result["pool_before_cents"]
    for place, spot in enumerate((6, 2, 5), 1):
        slip = hand_pay_slip("T01", rid, spot, j.of_round(rid))
        award = next(a for a in settled.progressive.awards if a.spot == spot)
        assert (slip["amount_cents"], slip["from_pool_cents"], slip["operator_topup_cents"]) == (
            award.amount_cents, award.from_pool_cents, award.operator_topup_cents)
        assert slip["amount_cents"] == slip["from_pool_cents"] + slip["operator_topup_cents"]
        assert (slip["pool_before_cents"], slip["pool_after_cents"]) == (before, before - award.from_pool_cents)
        assert slip["order"] == place and slip["of"] == 3
        before = slip["pool_after_cents"]
        assert slip["cards"] == HITS[spot].split()
        assert slip["settled"]["record"] == j.seq("round.settled")
        assert slip["awards"]["record"] == j.seq("progressive.awarded")
        assert slip["confirmed"]["key"] == "dealer" and slip["confirmed"]["name"] is None
        assert slip["confirmed"]["records"] == [j.seq("progressive.award_paid", spot=spot)]
        assert j.seq("progressive.award_paid", spot=spot) > j.seq("panel", action="award_paid", spot=spot)
    royal = hand_pay_slip("T01", rid, 5, j.of_round(rid))
    assert royal["hand"] == "royal flush" and royal["rule"] == "12.1.1"
    assert royal["operator_topup_cents"] > 0                     # 12.1.1: $10,000 or the whole pool
    assert royal["pool_after_cents"] == 0 and royal["reset"]       # the jackpot was won: reset after
    assert royal["round_pool_after_cents"] == result["pool_after_cents"]



def test_with_fixed_awards_from_the_pool_each_slip_s_draw_is_from_the_pool_before_it_12_1_2_12_2(tmp_path):
    # the straight flush on spot 5 is payment 1 of 2 (12.2): 10% of the pool before it (12.1.2),
    # not of the pool after the four of a kind on spot 1, which is paid after it
    from importlib import resources
    nsw = resources.files("tabled").joinpath("profiles", "nsw.toml").read_text("utf-8")
    profile = tmp_path / "from-pool.toml"
    profile.write_text(nsw.replace("fixed_awards_from_pool = false", "fixed_awards_from_pool = true"))
    j = Journaled(Harness(profile=str(profile), pool=2_000_000))
    rid = j.round_to_settlement(spots=(1, 5), hands={5: "9s 8s 7s 6s 5s", 1: "Qc Qd Qh Qs 3d",
                                                     "dealer": "Ac Kc 4c 3s 2h"})
    first, second = (hand_pay_slip("T01", rid, spot, j.of_round(rid)) for spot in (5, 1))
    assert (first["order"], first["category"]) == (1, "straight flush")
    assert first["from_pool_cents"] == first["pool_before_cents"] * 10 // 100 >= 200_000
    assert first["operator_topup_cents"] == 0
    assert (second["order"], second["pool_before_cents"]) == (2, first["pool_after_cents"])
    assert (second["from_pool_cents"], second["operator_topup_cents"]) == (50_000, 0)
    assert second["pool_after_cents"] == second["round_pool_after_cents"]

def test_a_slip_before_the_payment_is_confirmed_says_so_9_5():
    j = Journaled(Harness())
    rid = j.round_to_settlement()
    assert hand_pay_slip("T01", rid, 6, j.of_round(rid))["confirmed"] is None


def test_with_a_staff_list_the_slip_names_the_supervisor_who_confirmed_it_and_the_dealer():
    j = Journaled(staffed(ready=False))
    j.feed("panel", action="open_table", key="supervisor")  # the round starts: round.started names the dealer
    for deck in ("A", "B"):
        j.feed("deck.verified", deck=deck, cards=list(range(52)))
        j.feed("shuffler.shuffled", deck=deck)
    rid = j.round_to_settlement(spots=(2, 6))
    j.feed("panel", action="award_paid", key="supervisor", spot=6)
    j.feed("panel.button", button="settle_done", key="dealer")  # pays the next one: spot 2
    by_supervisor = hand_pay_slip("T01", rid, 6, j.of_round(rid))["confirmed"]
    assert by_supervisor["key"] == "supervisor" and by_supervisor["badge"] == 2001
    assert by_supervisor["text"] == "supervisor key: Sam Ortiz (badge 2001)"
    assert by_supervisor["records"] == [j.seq("progressive.award_paid", spot=6, key="supervisor")]
    names = {p["badge"]: p["name"] for p in ROSTER["people"]}
    by_dealer = hand_pay_slip("T01", rid, 2, j.of_round(rid))["confirmed"]
    assert by_dealer["text"] == f"dealer key: {names[1001]} (badge 1001)"
    assert by_dealer["records"] == [j.seq("progressive.award_paid", spot=2, key="dealer")]
    assert by_dealer["records"][0] > j.seq("panel.button", button="settle_done")


def test_a_round_or_spot_without_an_award_has_no_slip():
    j = Journaled(Harness())
    rid = j.round_to_settlement()
    with pytest.raises(SlipError, match="spot 3 has no progressive award"):
        hand_pay_slip("T01", rid, 3, j.of_round(rid))
    with pytest.raises(SlipError, match="round T01-999999 has no progressive award in the journal"):
        hand_pay_slip("T01", "T01-999999", 5, [])


def test_a_slip_is_numbered_by_its_awards_place_among_the_tables_awards_and_keeps_its_number():
    j = Journaled(Harness())
    first = j.round_to_settlement()
    for spot in (6, 2, 5):
        j.feed("panel", action="award_paid", key="dealer", spot=spot)

    def answers(before_rid: str) -> list[tuple[str | None, dict[str, Any]]]:
        upto = next(seq for seq, _, r, k, _ in j.records if r == before_rid and k == "progressive.awarded")
        return [(r, p) for seq, _, r, k, p in j.records if k == "progressive.awarded" and seq < upto]

    assert [hand_pay_slip("T01", first, spot, j.of_round(first), awards_before(answers(first)))["number"]
            for spot in (6, 2, 5)] == ["T01-000001", "T01-000002", "T01-000003"]   # in the order of payment
    second = j.round_to_settlement(spots=(2,))
    assert awards_before(answers(second)) == 3
    assert hand_pay_slip("T01", second, 2, j.of_round(second), 3)["number"] == "T01-000004"
    # a round's awards noted twice (a journal that holds a note twice) number nothing twice
    repeated = answers(second) + answers(second)
    assert awards_before(repeated) == 3
