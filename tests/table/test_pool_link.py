"""The table core under a lost pool link (rule 14.13, docs/settlement.md "When the pool cannot be reached"),
the meter fed by the pool's ordered readings (2.4.3), and the standing effects after a restart."""

from tabled.table.effects import PoolOp, ProgressiveAcceptance

from .harness import Harness, commands, notes, refused, rules_said, says

ROYAL = {3: "Ah Kh Qh Jh Th", "dealer": "Ac Kc 4d 3s 2h"}


def test_standing_effects_never_shuffle_the_deck_in_play_4_1_2_3_2_1():
    h = Harness()
    deck = h.round.deck
    assert h.round.phase == "betting" and not h.core.decks.status[deck]["shuffled"]  # in play since cards_ready
    for phase_step in ("betting", "dealing"):
        shuffles = [c.deck for c in commands(h.core.standing_effects(), "shuffler") if c.name == "shuffle"]
        assert deck not in shuffles, phase_step
        if phase_step == "betting":
            h.ante(1, 500)
            h.panel("no_more_bets")
    # a deck still being prepared for its round is asked for (4.1)
    h2 = Harness(ready=False)
    h2.panel("open_table", key="supervisor")
    h2.feed("deck.verified", deck="A", cards=list(range(52)))
    assert h2.round.phase == "preparing" and h2.round.deck == "A"
    assert "A" in [c.deck for c in commands(h2.core.standing_effects(), "shuffler") if c.name == "shuffle"]


def test_a_hit_while_the_pool_is_down_is_held_face_up_then_paid_once_14_13_9_5():
    h = Harness()
    h.to_reveal(ROYAL)
    rid = h.round.round_id
    h.auto_pool = False                          # the pool cannot be reached: nothing comes back
    h.t = 5_000
    eff = h.panel("settle")
    op = next(e for e in eff if isinstance(e, PoolOp) and e.op == "awards")
    h.t = 6_000
    eff = h.feed("equipment.fault", equipment="pool", reason="lost the pool database")
    held = notes(eff, "progressive.award_held")
    assert held and held[0].payload == {"spots": [3], "since_ms": 6_000, "rule": "14.13"}
    pending = [s for s in says(eff, "flag") if "progressive award pending" in s.text]
    assert pending and pending[0].spot == 3 and pending[0].rule == "9.5"
    assert h.round.phase == "settling" and h.round.spots[3].award_held   # the cards stay face up
    assert refused(h.panel("award_paid", spot=3))                        # nothing to pay yet
    h.feed("shuffler.shuffled", deck="B")
    assert h.round.round_id == rid                                       # no new round meanwhile
    # the link returns: the held op is delivered and the pool's answer folded, once
    h.t = 60_000
    h.auto_pool = True
    eff = h.run_pool(op)
    released = notes(eff, "progressive.award_released")
    assert released and released[0].payload["held_since_ms"] == 6_000 and released[0].payload["paid_ms"] == 60_000
    assert released[0].payload["hits"][0]["spot"] == 3
    assert h.core.pool.awards_held == {}
    h.feed("equipment.ok", equipment="pool")
    assert not refused(h.panel("award_paid", spot=3))
    assert notes(h.log, "round.finished")[-1].round_id == rid
    assert len(notes(h.log, "progressive.award_held")) == 1


def test_link_loss_then_inspector_approval_then_link_back_14_13():
    h = Harness()
    h.ante(1, 500, progressive=True)
    h.panel("no_more_bets")
    h.feed("equipment.fault", equipment="pool", reason="cut")
    h.deal({1: "2c 7d 9h Js Kd", "dealer": "Ac Kc 4d 3s 2h"})
    h.panel("fold", spot=1)
    h.panel("reveal")
    h.panel("settle")                                   # the round in play may finish
    assert h.round is None
    h.feed("shuffler.shuffled", deck="A")
    assert h.round is None                              # no new round without the inspector
    assert refused(h.panel("approve_play", key="supervisor"))
    eff = h.panel("approve_play", key="inspector")
    assert h.round.progressive_offline and "14.13" in rules_said(eff)
    assert commands(eff, "meter")                       # the meter is told: progressive offline
    eff = h.feed("wager", spot=2, area="ante", cents=500)
    assert not [c for c in commands(eff, "betspots") if c.name == "progressive_acceptance"]  # locked
    # the link returns during betting: the fault clears, acceptance and the meter come back
    eff = h.feed("equipment.ok", equipment="pool")
    assert notes(eff, "fault.cleared") and not h.core.equipment.faults and not h.round.progressive_offline
    # 11.1: every spot with an ante accepts again
    assert ProgressiveAcceptance(h.round.round_id, 2, True, (2,)) in eff
    assert commands(eff, "meter")


def test_the_meter_shows_the_pools_readings_in_ledger_order_and_never_goes_down_wrongly_2_4_3():
    h = Harness()
    shown = []

    def reading(cents, seq, kind="contribution"):
        eff = h.feed("pool.meter", balance_cents=cents, seq=seq, change=kind)
        shown.extend(c.cents for c in commands(eff, "meter"))
        return eff

    reading(1_000_000, 10, "open")
    reading(1_000_025, 12)
    reading(1_000_010, 11)                       # older than the one shown: dropped
    eff = reading(999_000, 13)                    # a contribution cannot lower the pool: not shown
    assert says(eff, "flag") and says(eff, "flag")[0].rule == "2.4.3"
    reading(1_000_050, 14)
    reading(900_000, 15, "award")                 # a hit lowers it
    # a separate balance read after an operation never overrides the feed
    assert commands(h.feed("pool.contributed", round_id="x", spot=1, balance_cents=5), "meter") == []
    assert shown == [1_000_000, 1_000_025, 1_000_050, 900_000]
    assert h.core.pool.cents == 900_000 and h.core.pool.seq == 15
    assert refused(h.feed("pool.meter", balance_cents=-1, seq=16))


def test_held_award_survives_a_snapshot():
    h = Harness()
    h.to_reveal(ROYAL)
    h.settled_then_pool_down()
    snap = h.core.snapshot()
    from tabled.table.core import TableCore
    again = TableCore.from_snapshot(snap, 7, h.profile)
    assert again.pool.awards_held == h.core.pool.awards_held and again.equipment.faults == {"pool": "down"}
    ops = [e for e in again.standing_effects() if isinstance(e, PoolOp) and e.op == "awards"]
    assert ops and ops[0].round_id == h.round.round_id


def test_an_award_made_while_the_pool_is_down_goes_out_with_the_time_it_was_held_14_13_9_5():
    h = Harness()
    h.to_reveal(ROYAL)
    h.auto_pool = False
    h.feed("equipment.fault", equipment="pool", reason="down")
    h.t += 1000
    (op,) = [e for e in h.panel("settle") if isinstance(e, PoolOp) and e.op == "awards"]
    assert op.held_since_ms == h.t == h.core.pool.awards_held[op.round_id]
    assert op.table_id == "T01" and op.schedule == h.profile.progressive_schedule and 3 in dict(op.hands)
    assert h.core.standing_pool_ops()[-1] == op  # the same again after a restart
